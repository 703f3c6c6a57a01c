#include "hal/collectives.h"

#include <cstddef>

#include "hal/error.h"

namespace hal {

const hal_collectives_t* collectives_of(const Device& device, std::string* why) {
  const hal_adapter_t& t = device.table();
  auto say = [&](const std::string& reason) {
    if (why) *why = reason;
    return nullptr;
  };
  if (HAL_ABI_MINOR_OF(t.abi_version) < 3 || t.struct_size < offsetof(hal_adapter_t, collectives) + sizeof(void*)) {
    return say("adapter " + device.adapter->name() + " predates collectives (ABI 1.3)");
  }
  const hal_collectives_t* c = t.collectives;
  if (c == nullptr) return say("adapter " + device.adapter->name() + " has no collectives");
  if (c->struct_size < offsetof(hal_collectives_t, reserved)) {
    return say("adapter " + device.adapter->name() + "'s collectives table is too small");
  }
  if (c->available(device.local_index) != HAL_STATUS_SUCCESS) {
    const char* message = t.get_last_error();
    return say(message && *message ? message : "its collectives library is unavailable");
  }
  return c;
}

namespace {

const hal_collectives_t& required(const Device& device) {
  std::string why;
  const hal_collectives_t* c = collectives_of(device, &why);
  if (!c) throw Error(ErrorCode::NotSupported, "hal:" + std::to_string(device.index) + ": " + why);
  return *c;
}

}  // namespace

hal_comm_unique_id_t Communicator::unique_id(const Device& device) {
  hal_comm_unique_id_t id{};
  throw_on_failure(device.table(), required(device).get_unique_id(device.local_index, &id), "get_unique_id");
  return id;
}

Communicator::Communicator(const Device& device, const hal_comm_unique_id_t& id, int nranks, int rank)
    : device_(device), ops_(&required(device)) {
  check(ops_->comm_init_rank(device.local_index, &id, nranks, rank, &comm_), "comm_init_rank");
}

Communicator::~Communicator() {
  // Aborted, not destroyed: NCCL's destroy finalizes with the other ranks, so a communicator that outlives its
  // group (a DDP module still holds the process group at interpreter exit) would wait at exit for a peer that is
  // waiting for this process to exit. The abort frees the same resources locally (torch.cuda's process groups
  // abort theirs in their destructors for the same reason).
  if (comm_ && !aborted_) ops_->comm_abort(comm_);
}

std::string Communicator::engine_name() const { return ops_->engine_name ? ops_->engine_name() : "adapter"; }

void Communicator::check(hal_status_t status, const char* what) const {
  throw_on_failure(device_.table(), status, what);
}

std::string Communicator::async_error() const {
  if (aborted_) return "the communicator was aborted after an earlier error";
  const hal_status_t status = ops_->comm_get_async_error(comm_);
  if (status == HAL_STATUS_SUCCESS || status == HAL_STATUS_NOT_READY) return {};
  const char* message = device_.table().get_last_error();
  return std::string(status_name(status)) + ": " + (message ? message : "");
}

void Communicator::abort() {
  if (comm_ && !aborted_) {
    aborted_ = true;
    ops_->comm_abort(comm_);
  }
}

}  // namespace hal
