// An index tensor as the SPIR-V kernels read it (indexing.cl, embedding.cl): int64 or int32 (is_64), `stride`
// elements apart. C++ for OpenCL only.
#pragma once

struct IndexAt {
  global const char* base;
  long stride;
  int is_64;
  long operator()(long k) const {
    return is_64 ? reinterpret_cast<global const long*>(base)[k * stride]
                 : reinterpret_cast<global const int*>(base)[k * stride];
  }
};
