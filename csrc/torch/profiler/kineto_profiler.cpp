// hal's device activity in torch.profiler: the PrivateUse1 activity profiler that Kineto runs beside its own
// when a profile asks for ProfilerActivity.PrivateUse1. Each session installs an ActivityRecorder as the
// core's observer while it records; the core times kernels and copies with the adapter's events
// (hal/device_activity.h), and the session hands them to Kineto as kernel and memcpy activities linked to
// the op that launched them. PyTorch then counts them as the ops' device time in key_averages() and
// writes them in the chrome trace, on a row per stream.
//
// The registry (REGISTER_PRIVATEUSE1_PROFILER, pytorch#172154) is recent; with a PyTorch that lacks it, or
// one built without Kineto, this file is empty and device time comes from the legacy stubs
// (legacy_stubs.cpp, torch.autograd.profiler.profile(use_device="hal")) alone.
#if defined(USE_KINETO) && __has_include(<torch/csrc/profiler/standalone/privateuse1_profiler.h>)

#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include <libkineto.h>
#include <output_base.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hal/device_activity.h"
#include "profiler/activity_recorder.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"

namespace torch_hal::profiler {
namespace {

using libkineto::ActivityType;

const std::set<ActivityType>& hal_activity_types() {
  static const std::set<ActivityType> types{ActivityType::CONCURRENT_KERNEL, ActivityType::GPU_MEMCPY};
  return types;
}

ActivityType kineto_type(hal::ActivityKind kind) {
  return kind == hal::ActivityKind::Memcpy ? ActivityType::GPU_MEMCPY : ActivityType::CONCURRENT_KERNEL;
}

const char* copy_kind_name(hal_copy_kind_t kind) {
  switch (kind) {
    case HAL_COPY_HOST_TO_DEVICE: return "HtoD";
    case HAL_COPY_DEVICE_TO_HOST: return "DtoH";
    case HAL_COPY_DEVICE_TO_DEVICE: return "DtoD";
  }
  return "unknown";
}

int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class HalProfilerSession final : public libkineto::IActivityProfilerSession {
 public:
  explicit HalProfilerSession(std::set<ActivityType> wanted)
      : wanted_(std::move(wanted)),
        recorder_(std::make_shared<ActivityRecorder>()),
        buffer_(std::make_unique<libkineto::CpuTraceBuffer>()) {
    buffer_->span = libkineto::TraceSpan(0, 0, "hal");
    buffer_->gpuOpCount = 0;
  }

  ~HalProfilerSession() override {
    // A session dropped while recording (an error in the profiler) must not leave the core observing.
    if (recording_) hal::set_activity_observer(nullptr);
  }

  void start() override {
    buffer_->span.startTime = host_now_ns();
    hal::set_activity_observer(recorder_);
    recording_ = true;
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    hal::set_activity_observer(nullptr);
    recording_ = false;
    {
      // Waits for the device; a Python backend's event calls need the GIL meanwhile.
      GilReleasedAroundCoreLock no_gil;
      try {
        for (std::string& e : hal::flush_device_activities()) errors_.push_back(std::move(e));
      } catch (const std::exception& e) {
        errors_.push_back(std::string("hal device activity: ") + e.what());
      }
    }
    buffer_->span.endTime = host_now_ns();
    for (hal::DeviceActivity& a : recorder_->take()) add(a);
    status_ = errors_.empty() ? libkineto::TraceStatus::PROCESSING : libkineto::TraceStatus::WARNING;
  }

  std::vector<std::string> errors() override { return errors_; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, [](int32_t) -> const libkineto::ITraceActivity* { return nullptr; }, 0, 0);
  }

  // Links each activity to the CPU op that launched it (Kineto knows that op's activity by the correlation
  // id pushed while it ran), which is how PyTorch adds device time to its ops, then logs it. The logger
  // keeps pointers: the activities live in buffer_, which Kineto takes over through getTraceBuffer().
  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked_activity,
                    int64_t /*start_time*/, int64_t /*end_time*/) override {
    for (auto& activity : buffer_->activities) {
      if (activity->id != 0) activity->linked = linked_activity(activity->id);
      logger.handleActivity(*activity);
    }
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    if (streams_.empty()) return nullptr;
    const int first = streams_.begin()->first;
    std::string label = "hal";
    for (const auto& [device, streams] : streams_) label += (device == first ? ":" : ",") + std::to_string(device);
    return std::make_unique<libkineto::DeviceInfo>(
        libkineto::DeviceInfo{first, first, "hal", label + " (" + torch_hal::device(first).properties.name + ")"});
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [device, streams] : streams_) {
      for (hal::StreamId stream : streams) {
        out.push_back(libkineto::ResourceInfo{stream, stream, device,
                                              "hal:" + std::to_string(device) + " stream " + std::to_string(stream)});
      }
    }
    return out;
  }

  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return std::move(buffer_); }

  void pushCorrelationId(uint64_t id) override { ActivityRecorder::push_correlation(id); }
  void popCorrelationId() override { ActivityRecorder::pop_correlation(); }

 private:
  void add(const hal::DeviceActivity& a) {
    const ActivityType type = kineto_type(a.kind);
    if (!wanted_.count(type)) return;  // a profile may ask for kernels or copies only
    buffer_->emplace_activity(buffer_->span, type, a.name);
    libkineto::GenericTraceActivity& act = *buffer_->activities.back();
    act.startTime = a.start_ns;
    act.endTime = a.end_ns;
    act.id = static_cast<int32_t>(a.correlation);
    act.device = a.device;
    act.resource = static_cast<int32_t>(a.stream);
    act.addMetadata("device", a.device);
    act.addMetadata("stream", a.stream);
    act.addMetadata("correlation", a.correlation);
    if (a.kind == hal::ActivityKind::Memcpy) {
      act.addMetadataQuoted("kind", copy_kind_name(a.copy_kind));
      act.addMetadata("bytes", a.bytes);
      const int64_t ns = std::max<int64_t>(a.end_ns - a.start_ns, 1);
      act.addMetadata("memory bandwidth (GB/s)", static_cast<double>(a.bytes) / static_cast<double>(ns));
    }
    ++buffer_->gpuOpCount;
    streams_[a.device].insert(a.stream);
  }

  std::set<ActivityType> wanted_;
  std::shared_ptr<ActivityRecorder> recorder_;
  std::unique_ptr<libkineto::CpuTraceBuffer> buffer_;  // heap-held: activities point at its span
  std::map<int, std::set<hal::StreamId>> streams_;     // rows of the trace
  std::vector<std::string> errors_;
  bool recording_ = false;
};

class HalActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }
  const std::set<ActivityType>& availableActivities() const override { return hal_activity_types(); }

  // A session only when the profile asks for device activity: a CPU-only profile costs hal nothing.
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& activity_types,
                                                                 const libkineto::Config& /*config*/) override {
    std::set<ActivityType> wanted;
    for (ActivityType t : hal_activity_types()) {
      if (activity_types.count(t)) wanted.insert(t);
    }
    if (wanted.empty()) return nullptr;
    return std::make_unique<HalProfilerSession>(std::move(wanted));
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t /*ts_ms*/, int64_t /*duration_ms*/,
                                                                 const std::set<ActivityType>& activity_types,
                                                                 const libkineto::Config& config) override {
    return configure(activity_types, config);
  }

 private:
  std::string name_{"hal"};
};

REGISTER_PRIVATEUSE1_PROFILER(HalActivityProfiler);

}  // namespace
}  // namespace torch_hal::profiler

#endif  // USE_KINETO && privateuse1_profiler.h
