// Collectives of an adapter (ABI 1.3, optional): the table, and a communicator owned by RAII.
// torch.distributed's hal backend (csrc/torch/distributed) is the user; the core only wraps the C ABI.
#pragma once

#include <string>

#include "hal/device_registry.h"
#include "torch_hal/adapter.h"

namespace hal {

// The adapter's collectives, or nullptr when it has none (older ABI, a table that does not cover the field,
// a NULL entry) or when available() says its library is missing; `*why` then says which.
const hal_collectives_t* collectives_of(const Device& device, std::string* why = nullptr);

// One device's membership in a group of `nranks` processes. Destroyed normally, or aborted (which must not
// block on peers) after an error or a timeout.
class Communicator {
 public:
  // Rank 0's id, to be sent to every rank. Throws hal::Error when the adapter has no collectives.
  static hal_comm_unique_id_t unique_id(const Device& device);

  Communicator(const Device& device, const hal_comm_unique_id_t& id, int nranks, int rank);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  const hal_collectives_t& ops() const { return *ops_; }
  hal_comm_t handle() const { return comm_; }
  const Device& device() const { return device_; }
  std::string engine_name() const;

  // Throws hal::Error naming `what` and the adapter's message when `status` is not SUCCESS.
  void check(hal_status_t status, const char* what) const;
  // Empty while healthy (or still running); the library's message after an asynchronous error.
  std::string async_error() const;
  void abort();

 private:
  const Device& device_;
  const hal_collectives_t* ops_;
  hal_comm_t comm_ = nullptr;
  bool aborted_ = false;
};

}  // namespace hal
