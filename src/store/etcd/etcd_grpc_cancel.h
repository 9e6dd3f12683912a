#pragma once

// Ends a streaming call of EtcdGrpcChannel from another thread, at once: the
// stream's thread is woken from its wait rather than noticing on its next
// poll. A cancellation made before the stream starts ends it as it starts.
//
// Thread-safety: Cancel() and cancelled() may be called from any thread while
// one stream at a time runs with the object.

#include <mutex>

namespace moraine::store {

class EtcdGrpcChannel;

class EtcdGrpcCancel {
 public:
  EtcdGrpcCancel() = default;
  EtcdGrpcCancel(const EtcdGrpcCancel&) = delete;
  EtcdGrpcCancel& operator=(const EtcdGrpcCancel&) = delete;

  void Cancel();
  bool cancelled() const;

 private:
  friend class EtcdGrpcChannel;
  // The running stream's curl multi handle, woken by Cancel(); false (and
  // nothing attached) if already cancelled.
  bool Attach(void* multi);
  void Detach();

  mutable std::mutex mutex_;
  bool cancelled_ = false;
  void* multi_ = nullptr;  // a CURLM*, kept opaque so curl stays out of headers
};

}  // namespace moraine::store
