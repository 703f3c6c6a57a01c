#include "hal/device_activity.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <exception>
#include <map>
#include <mutex>

#include "hal/event.h"

namespace hal {
namespace {

// A device's reference point for one session: an event whose device time is known on the host clock.
struct Anchor {
  Event event{/*enable_timing=*/true};
  int64_t host_ns = 0;
};

// Ended spans are timed at flush, but a long session would hold two adapter events per span meanwhile:
// every this many spans, those already complete are timed and their events released.
constexpr size_t kReapEvery = 4096;

int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct DeviceSpan::Pending {
  std::shared_ptr<ActivityObserver> observer;
  std::shared_ptr<const Anchor> anchor;
  DeviceActivity activity;
  Event start{/*enable_timing=*/true};
  Event end{/*enable_timing=*/true};
};

namespace {

// Whether an observer is set: asked on every allocation, free and op, so it is a plain flag rather than a member
// of the State below (whose first use constructs it).
std::atomic<bool> g_observed{false};

struct State {
  std::mutex mutex;  // guards everything below but the anchors
  std::shared_ptr<ActivityObserver> observer;
  std::deque<std::unique_ptr<DeviceSpan::Pending>> pending;  // ended, not timed yet, in end order
  std::vector<std::pair<std::shared_ptr<ActivityObserver>, DeviceActivity>> timed;  // not delivered yet
  std::vector<std::string> errors;

  // Held while a device is anchored (an event synchronization): spans beginning on other threads meanwhile
  // wait for the anchor they need rather than take a second one.
  std::mutex anchor_mutex;
  std::map<int, std::shared_ptr<const Anchor>> anchors;  // this session's
  std::map<int, StreamId> anchor_streams;                // one idle stream per device, kept for the process
};

// Leaked on purpose: pending spans hold adapter events, which must not be destroyed after the adapters at
// process exit.
State& state() {
  static auto* s = new State();
  return *s;
}

std::shared_ptr<ActivityObserver> current_observer() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.observer;
}

void note_error(const std::string& what, const std::exception& e) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.errors.push_back(what + ": " + e.what());
}

// The device's anchor for this session, taken on first use. Its event is recorded on a stream that nothing
// else uses, so it completes at once whatever the device is busy with; the host time is the middle of the
// interval that brackets the record and its completion (microseconds on an idle stream).
std::shared_ptr<const Anchor> anchor_for(int device) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.anchor_mutex);
  if (auto it = s.anchors.find(device); it != s.anchors.end()) return it->second;
  StreamId& stream = s.anchor_streams[device];
  if (stream == kDefaultStreamId) stream = create_stream(device);
  auto anchor = std::make_shared<Anchor>();
  const int64_t before = host_now_ns();
  anchor->event.record(device, stream);
  anchor->event.synchronize();
  const int64_t after = host_now_ns();
  anchor->host_ns = before + (after - before) / 2;
  s.anchors[device] = anchor;
  return anchor;
}

// Waits for the span's end and converts its device times to the host clock.
void time_span(DeviceSpan::Pending& p) {
  p.end.synchronize();
  const double since_anchor_ms = p.anchor->event.elapsed_ms(p.start);
  const double duration_ms = p.start.elapsed_ms(p.end);
  p.activity.start_ns = p.anchor->host_ns + std::llround(since_anchor_ms * 1e6);
  p.activity.end_ns = p.activity.start_ns + std::llround(duration_ms * 1e6);
}

// Called with s.mutex held: times the spans at the front that have completed, releasing their events.
void reap_completed(State& s) {
  while (!s.pending.empty() && s.pending.front()->end.query()) {
    std::unique_ptr<DeviceSpan::Pending> p = std::move(s.pending.front());
    s.pending.pop_front();
    try {
      time_span(*p);
      s.timed.emplace_back(std::move(p->observer), std::move(p->activity));
    } catch (const std::exception& e) {
      s.errors.push_back("timing " + p->activity.name + " on hal:" + std::to_string(p->activity.device) + ": " +
                         e.what());
    }
  }
}

}  // namespace

void set_activity_observer(std::shared_ptr<ActivityObserver> observer) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.anchor_mutex);
    s.anchors.clear();  // device and host clocks drift apart: each session measures its own offset
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  g_observed.store(observer != nullptr, std::memory_order_release);
  s.observer = std::move(observer);
}

bool activity_observed() { return g_observed.load(std::memory_order_acquire); }

std::vector<std::string> flush_device_activities() {
  State& s = state();
  std::deque<std::unique_ptr<DeviceSpan::Pending>> pending;
  std::vector<std::pair<std::shared_ptr<ActivityObserver>, DeviceActivity>> timed;
  std::vector<std::string> errors;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    pending.swap(s.pending);
    timed.swap(s.timed);
    errors.swap(s.errors);
  }
  for (auto& p : pending) {
    try {
      time_span(*p);
      timed.emplace_back(std::move(p->observer), std::move(p->activity));
    } catch (const std::exception& e) {
      errors.push_back("timing " + p->activity.name + " on hal:" + std::to_string(p->activity.device) + ": " +
                       e.what());
    }
  }
  pending.clear();  // releases the events before the observers run
  for (auto& [observer, activity] : timed) observer->on_device_activity(std::move(activity));
  return errors;
}

void report_memory_activity(const MemoryActivity& event) {
  if (auto observer = current_observer()) observer->on_memory(event);
}

void DeviceSpan::begin(ActivityKind kind, int device, StreamId stream, std::string name, uint64_t bytes,
                       hal_copy_kind_t copy_kind) {
  std::shared_ptr<ActivityObserver> observer = current_observer();
  if (!observer) return;  // the session ended between the caller's test and here
  try {
    auto p = std::make_unique<Pending>();
    p->anchor = anchor_for(device);
    p->activity.kind = kind;
    p->activity.name = std::move(name);
    p->activity.device = device;
    p->activity.stream = stream;
    p->activity.copy_kind = copy_kind;
    p->activity.bytes = bytes;
    p->activity.correlation = observer->correlation();
    p->observer = std::move(observer);
    p->start.record(device, stream);
    pending_.reset(p.release());
  } catch (const std::exception& e) {
    // Profiling must not make the work fail: the span is lost, and the profiler reports why.
    note_error("starting a device span on hal:" + std::to_string(device), e);
  }
}

void DeviceSpan::end() {
  if (!pending_) return;
  std::unique_ptr<Pending> p(pending_.release());
  try {
    p->end.record(p->activity.device, p->activity.stream);
  } catch (const std::exception& e) {
    note_error("ending the device span of " + p->activity.name, e);
    return;
  }
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.pending.push_back(std::move(p));
  if (s.pending.size() % kReapEvery == 0) reap_completed(s);
}

DeviceSpan copy_span(int device, StreamId stream, hal_copy_kind_t kind, uint64_t bytes, bool host_pinned,
                     bool peer) {
  return DeviceSpan(
      ActivityKind::Memcpy, device, stream,
      [&] {
        const char* host = host_pinned ? "Pinned" : "Pageable";
        switch (kind) {
          case HAL_COPY_HOST_TO_DEVICE: return "Memcpy HtoD (" + std::string(host) + " -> Device)";
          case HAL_COPY_DEVICE_TO_HOST: return "Memcpy DtoH (Device -> " + std::string(host) + ")";
          default: return std::string(peer ? "Memcpy PtoP (Device -> Device)" : "Memcpy DtoD (Device -> Device)");
        }
      },
      bytes, kind);
}

void DeviceSpan::PendingDeleter::operator()(Pending* p) const { delete p; }

DeviceSpan::~DeviceSpan() = default;
DeviceSpan::DeviceSpan(DeviceSpan&& other) noexcept = default;
DeviceSpan& DeviceSpan::operator=(DeviceSpan&& other) noexcept = default;

}  // namespace hal
