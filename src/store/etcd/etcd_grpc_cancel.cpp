#include "store/etcd/etcd_grpc_cancel.h"

#include <curl/curl.h>

namespace moraine::store {

void EtcdGrpcCancel::Cancel() {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  // Held under the mutex: Detach() waits for it before the multi goes away.
  if (multi_) curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

bool EtcdGrpcCancel::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

bool EtcdGrpcCancel::Attach(void* multi) {
  std::lock_guard lock(mutex_);
  if (cancelled_) return false;
  multi_ = multi;
  return true;
}

void EtcdGrpcCancel::Detach() {
  std::lock_guard lock(mutex_);
  multi_ = nullptr;
}

}  // namespace moraine::store
