// An adapter event owned by RAII. Created lazily on the device of the first record(), as CUDA events are.
#pragma once

#include "hal/streams.h"
#include "torch_hal/adapter.h"

namespace hal {

class Event {
 public:
  explicit Event(bool enable_timing = false) : enable_timing_(enable_timing) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(int device, StreamId stream);
  void block(int device, StreamId stream) const;  // make `stream` wait for this event; no-op if never recorded
  bool query() const;                              // true if never recorded or completed
  void synchronize() const;
  float elapsed_ms(const Event& end) const;        // both recorded with timing, else InvalidArgument
  int device() const { return device_; }           // -1 until first recorded
  bool recorded() const { return event_ != nullptr && was_recorded_; }

 private:
  bool enable_timing_;
  int device_ = -1;
  hal_event_t event_ = nullptr;
  bool was_recorded_ = false;
};

}  // namespace hal
