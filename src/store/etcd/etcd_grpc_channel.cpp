#include "store/etcd/etcd_grpc_channel.h"

#include <curl/curl.h>
#include <google/protobuf/message_lite.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "store/error.h"
#include "store/etcd/etcd_grpc_cancel.h"

namespace moraine::store {

namespace {

struct HeaderList {
  curl_slist* list = nullptr;
  HeaderList() = default;
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  ~HeaderList() { curl_slist_free_all(list); }
  void Add(const std::string& line) {
    curl_slist* longer = curl_slist_append(list, line.c_str());
    if (!longer) throw std::bad_alloc();
    list = longer;
  }
};

}  // namespace

struct EtcdGrpcChannel::Handle {
  CURL* easy = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  HeaderList connect_to;  // curl keeps a pointer to it for the handle's life
};

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kFrameHeaderBytes = 5;  // compressed flag, 4-byte length
// Large Range pages arrive faster with larger reads than curl's 16 KiB.
constexpr long kReceiveBufferBytes = 512 * 1024;
// A member whose host is gone may never answer a SYN; a call's own deadline
// bounds that already, a stream (which has none) only by this.
constexpr long kConnectTimeoutMs = 5000;
// How often a stream's thread looks at its probe timer at the latest.
constexpr auto kStreamPollCap = std::chrono::milliseconds(1000);

void InitCurlOnce() {
  // curl_global_init is not thread-safe in every curl this may be built
  // with; once per process, never undone (the extension stays loaded).
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw IoError("libcurl could not be initialized for the etcd client");
    }
  });
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// grpc-message is percent-encoded on the wire (gRPC's HTTP/2 protocol);
// a malformed escape is kept as it came, as gRPC's own decoder does.
std::string PercentDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size()) {
      const int high = HexDigit(in[i + 1]);
      const int low = HexDigit(in[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(in[i]);
  }
  return out;
}

// What gRPC gives a call whose answer is an HTTP error without a grpc-status
// (its http-to-grpc status mapping).
EtcdRpcCode CodeOfHttpStatus(long http_status) {
  switch (http_status) {
    case 400:
      return EtcdRpcCode::kInternal;
    case 401:
      return EtcdRpcCode::kUnauthenticated;
    case 403:
      return EtcdRpcCode::kPermissionDenied;
    case 404:
      return EtcdRpcCode::kUnimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return EtcdRpcCode::kUnavailable;
    default:
      return EtcdRpcCode::kUnknown;
  }
}

// `message` in gRPC's framing, or false if it is too large for a frame.
bool Frame(const google::protobuf::MessageLite& message, std::string* out) {
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) return false;
  out->assign(kFrameHeaderBytes + size, '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(out->data());
  bytes[1] = static_cast<uint8_t>(size >> 24);
  bytes[2] = static_cast<uint8_t>(size >> 16);
  bytes[3] = static_cast<uint8_t>(size >> 8);
  bytes[4] = static_cast<uint8_t>(size);
  message.SerializeWithCachedSizesToArray(bytes + kFrameHeaderBytes);
  return true;
}

uint32_t FrameLength(const char* header) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(header);
  return (uint32_t{bytes[1]} << 24) | (uint32_t{bytes[2]} << 16) | (uint32_t{bytes[3]} << 8) |
         uint32_t{bytes[4]};
}

// What one call received: its headers and trailers, and its body (all of it
// for a unary call; for a stream, what is not yet a whole message).
struct Answer {
  long http_status = 0;
  bool has_grpc_status = false;
  int grpc_status = 0;
  std::string grpc_message;
  std::string body;
  Clock::time_point last_byte = Clock::now();
  // Streams only.
  const std::function<bool(std::string_view)>* on_message = nullptr;
  bool stopped = false;     // on_message asked to stop
  std::string frame_error;  // a message we cannot read: the stream is ended
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto& answer = *static_cast<Answer*>(user);
  const size_t bytes = size * count;
  answer.last_byte = Clock::now();
  std::string_view line(data, bytes);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      answer.http_status = std::strtol(std::string(line.substr(space + 1)).c_str(), nullptr, 10);
    }
    return bytes;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  const std::string_view name = line.substr(0, colon);
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  if (EqualsIgnoringCase(name, "grpc-status")) {
    answer.has_grpc_status = true;
    answer.grpc_status = std::atoi(std::string(value).c_str());
  } else if (EqualsIgnoringCase(name, "grpc-message")) {
    answer.grpc_message = PercentDecode(value);
  }
  return bytes;
}

size_t OnUnaryBody(char* data, size_t size, size_t count, void* user) {
  auto& answer = *static_cast<Answer*>(user);
  answer.body.append(data, size * count);
  return size * count;
}

size_t OnStreamBody(char* data, size_t size, size_t count, void* user) {
  auto& answer = *static_cast<Answer*>(user);
  const size_t bytes = size * count;
  answer.last_byte = Clock::now();
  if (answer.stopped) return bytes;  // the caller has all it wants
  answer.body.append(data, bytes);
  size_t at = 0;
  while (answer.body.size() - at >= kFrameHeaderBytes) {
    const char* header = answer.body.data() + at;
    const uint32_t length = FrameLength(header);
    if (answer.body.size() - at - kFrameHeaderBytes < length) break;
    if (header[0] != 0) {
      // Never asked for (no grpc-accept-encoding is sent).
      answer.frame_error = "the member sent a compressed message";
      return 0;  // ends the transfer
    }
    const std::string_view message(header + kFrameHeaderBytes, length);
    at += kFrameHeaderBytes + length;
    if (!(*answer.on_message)(message)) {
      answer.stopped = true;
      break;
    }
  }
  answer.body.erase(0, at);
  return bytes;
}

// Up to the end of the request message, then the request side pauses for
// good: never ended, so the server does not take it as a half-close.
struct Upload {
  std::string body;
  size_t sent = 0;
};

size_t OnUpload(char* buffer, size_t size, size_t count, void* user) {
  auto& upload = *static_cast<Upload*>(user);
  if (upload.sent == upload.body.size()) return CURL_READFUNC_PAUSE;
  const size_t bytes = std::min(size * count, upload.body.size() - upload.sent);
  std::memcpy(buffer, upload.body.data() + upload.sent, bytes);
  upload.sent += bytes;
  return bytes;
}

void AddRequestHeaders(HeaderList& headers, const EtcdGrpcChannel::Metadata& metadata) {
  headers.Add("content-type: application/grpc");
  headers.Add("te: trailers");
  // Headers curl would add by itself and gRPC has no use for.
  headers.Add("Accept:");
  headers.Add("Expect:");
  for (const auto& [name, value] : metadata) headers.Add(name + ": " + value);
}

// A transfer that failed in TLS in a way no retry mends: the member's
// certificate, ours or the CA file (a member that speaks no TLS is told by
// RecognizeMemberProtocol). Anything else (a refused or reset connection, a handshake cut short by
// a member going away) stays UNAVAILABLE, to be retried.
std::optional<EtcdRpcStatus> TlsFailure(CURLcode result, std::string_view error,
                                        const std::string& endpoint) {
  const std::string member = "etcd member " + endpoint;
  switch (result) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return EtcdRpcStatus(
          EtcdRpcCode::kUnauthenticated,
          "TLS: the certificate of " + member + " is not trusted (" + std::string(error) + ")");
    case CURLE_SSL_CERTPROBLEM:
      return EtcdRpcStatus(
          EtcdRpcCode::kUnauthenticated,
          "TLS: the client certificate or key could not be used (" + std::string(error) + ")");
    case CURLE_SSL_CACERT_BADFILE:
      return EtcdRpcStatus(EtcdRpcCode::kUnauthenticated,
                           "TLS: the CA file could not be read (" + std::string(error) + ")");
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      if (error.find("alert") != std::string_view::npos &&
          (error.find("certificate") != std::string_view::npos ||
           error.find("unknown ca") != std::string_view::npos)) {
        return EtcdRpcStatus(
            EtcdRpcCode::kUnauthenticated,
            "TLS: " + member + " refused the client certificate (" + std::string(error) + ")");
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// The status of a finished transfer. A grpc-status the member sent is its
// final word, even if the transfer broke after it (a server may answer and
// reset the stream before it has read the whole request, e.g. one over its
// size limit).
EtcdRpcStatus StatusOf(CURLcode result, const char* error, const Answer& answer,
                       const std::string& endpoint, bool tls) {
  if (answer.has_grpc_status) {
    const int code = answer.grpc_status;
    return {code >= 0 && code <= static_cast<int>(EtcdRpcCode::kUnauthenticated)
                ? static_cast<EtcdRpcCode>(code)
                : EtcdRpcCode::kUnknown,
            answer.grpc_message};
  }
  if (result == CURLE_OPERATION_TIMEDOUT) {
    return {EtcdRpcCode::kDeadlineExceeded, "Deadline Exceeded"};
  }
  const std::string_view text = error[0] ? error : curl_easy_strerror(result);
  if (tls) {
    if (auto failure = TlsFailure(result, text, endpoint)) return *failure;
  }
  if (result != CURLE_OK) {
    return {EtcdRpcCode::kUnavailable, "etcd member " + endpoint + ": " + std::string(text)};
  }
  if (answer.http_status != 200) {
    return {
        CodeOfHttpStatus(answer.http_status),
        "etcd member " + endpoint + " answered HTTP status " + std::to_string(answer.http_status)};
  }
  return {EtcdRpcCode::kInternal,
          "etcd member " + endpoint + " ended the call without a grpc-status"};
}

// What a member's port speaks, found by a TLS handshake that verifies
// nothing and sends no data: TLS if it completes or the member refuses it
// with an alert (it wants a client certificate); cleartext if the connection
// is made but the handshake fails without one; unknown if no connection is
// made (a member that is away). A member that speaks the other protocol than
// the channel closes the connection without a word, as one that dies
// mid-call does, and only this tells the two apart.
enum class MemberProtocol { kTls, kCleartext, kUnknown };

MemberProtocol ProbeMemberProtocol(const std::string& endpoint) {
  CURL* easy = curl_easy_init();
  if (!easy) return MemberProtocol::kUnknown;
  char error[CURL_ERROR_SIZE] = {};
  const std::string url = "https://" + endpoint + "/";
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 1000L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  const CURLcode result = curl_easy_perform(easy);
  curl_easy_cleanup(easy);
  if (result == CURLE_OK || std::string_view(error).find("alert") != std::string_view::npos) {
    return MemberProtocol::kTls;
  }
  return result == CURLE_SSL_CONNECT_ERROR ? MemberProtocol::kCleartext : MemberProtocol::kUnknown;
}

// A call that reached the member and got no answer back: a member that speaks
// the other protocol than the channel (FAILED_PRECONDITION "protocol: ..."),
// or one that went away mid-call (then UNAVAILABLE stays).
EtcdRpcStatus RecognizeMemberProtocol(EtcdRpcStatus status, CURLcode result, const Answer& answer,
                                      const std::string& endpoint, bool tls) {
  if (status.code() != EtcdRpcCode::kUnavailable || answer.http_status != 0 ||
      result == CURLE_COULDNT_CONNECT || result == CURLE_COULDNT_RESOLVE_HOST) {
    return status;
  }
  const MemberProtocol spoken = ProbeMemberProtocol(endpoint);
  if (!tls && spoken == MemberProtocol::kTls) {
    return {EtcdRpcCode::kFailedPrecondition,
            "protocol: etcd member " + endpoint + " speaks TLS only"};
  }
  if (tls && spoken == MemberProtocol::kCleartext) {
    return {EtcdRpcCode::kFailedPrecondition,
            "protocol: etcd member " + endpoint + " does not speak TLS"};
  }
  return status;
}

struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};

}  // namespace

EtcdGrpcChannel::EtcdGrpcChannel(std::string endpoint, bool tls, const EtcdSecurity& security)
    : endpoint_(std::move(endpoint)), tls_(tls), security_(security) {
  security_.password.clear();
  security_.user.clear();
  if (!tls_) {
    base_url_ = "http://" + endpoint_;
  } else if (security_.server_name.empty()) {
    base_url_ = "https://" + endpoint_;
  } else {
    // A server name other than the endpoint's host goes into the URL (so TLS
    // asks for it and checks the certificate against it); CONNECT_TO, set on
    // each handle, still takes the connection to the endpoint.
    const std::string server =
        security_.server_name + ":" + endpoint_.substr(endpoint_.rfind(':') + 1);
    base_url_ = "https://" + server;
    connect_to_ = server + ":" + endpoint_;
  }
  InitCurlOnce();
}

EtcdGrpcChannel::~EtcdGrpcChannel() {
  for (Handle* handle : idle_) {
    curl_easy_cleanup(handle->easy);
    delete handle;
  }
}

std::string EtcdGrpcChannel::Url(std::string_view method) const {
  return base_url_ + std::string(method);
}

EtcdGrpcChannel::Handle* EtcdGrpcChannel::NewHandle() const {
  auto handle = std::make_unique<Handle>();
  handle->easy = curl_easy_init();
  if (!handle->easy) throw IoError("libcurl could not create a handle for the etcd client");
  CURL* easy = handle->easy;
  if (tls_) {
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long{CURL_HTTP_VERSION_2TLS});
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!security_.ca_file.empty()) {
      curl_easy_setopt(easy, CURLOPT_CAINFO, security_.ca_file.c_str());
    }
    if (!security_.cert_file.empty()) {
      curl_easy_setopt(easy, CURLOPT_SSLCERT, security_.cert_file.c_str());
      curl_easy_setopt(easy, CURLOPT_SSLKEY, security_.key_file.c_str());
    }
    if (!connect_to_.empty()) {
      handle->connect_to.Add(connect_to_);
      curl_easy_setopt(easy, CURLOPT_CONNECT_TO, handle->connect_to.list);
    }
  } else {
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long{CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE});
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http");
  }
  // Calls run on many threads: no signals for timeouts.
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, handle->error);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  return handle.release();
}

EtcdGrpcChannel::Handle* EtcdGrpcChannel::Acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      Handle* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  Handle* handle = NewHandle();
  curl_easy_setopt(handle->easy, CURLOPT_WRITEFUNCTION, &OnUnaryBody);
  return handle;
}

void EtcdGrpcChannel::Release(Handle* handle) {
  std::lock_guard lock(mutex_);
  idle_.push_back(handle);
}

EtcdRpcStatus EtcdGrpcChannel::Call(std::string_view method,
                                    const google::protobuf::MessageLite& request,
                                    google::protobuf::MessageLite* response,
                                    std::chrono::milliseconds timeout, const Metadata& metadata) {
  std::string body;
  if (!Frame(request, &body)) {
    return {EtcdRpcCode::kResourceExhausted, "request larger than a gRPC message can be"};
  }
  const long timeout_ms = std::max<long>(1, static_cast<long>(timeout.count()));
  HeaderList headers;
  AddRequestHeaders(headers, metadata);
  // gRPC's grpc-timeout takes at most 8 digits.
  headers.Add("grpc-timeout: " + std::to_string(std::min<long>(timeout_ms, 99999999)) + "m");
  const std::string url = Url(method);

  Handle* handle = Acquire();
  CURL* easy = handle->easy;
  Answer answer;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &answer);
  handle->error[0] = '\0';
  const CURLcode result = curl_easy_perform(easy);
  // The handle outlives this call's buffers: let go of them.
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, nullptr);
  EtcdRpcStatus status = StatusOf(result, handle->error, answer, endpoint_, tls_);
  status = RecognizeMemberProtocol(std::move(status), result, answer, endpoint_, tls_);
  if (result == CURLE_OK) {
    Release(handle);
  } else {
    // Its connection may be to a member that went away or hangs: the next
    // call starts afresh rather than trust it.
    curl_easy_cleanup(easy);
    delete handle;
  }
  if (!status.ok()) return status;

  if (answer.body.size() < kFrameHeaderBytes) {
    return {EtcdRpcCode::kInternal, "etcd member " + endpoint_ + " answered without a message"};
  }
  const uint32_t length = FrameLength(answer.body.data());
  if (answer.body[0] != 0) {
    return {EtcdRpcCode::kInternal, "etcd member " + endpoint_ + " sent a compressed message"};
  }
  if (answer.body.size() - kFrameHeaderBytes < length ||
      !response->ParseFromArray(answer.body.data() + kFrameHeaderBytes, static_cast<int>(length))) {
    return {EtcdRpcCode::kInternal, "etcd member " + endpoint_ + " sent an unreadable message"};
  }
  return {};
}

EtcdRpcStatus EtcdGrpcChannel::ServerStream(
    std::string_view method, const google::protobuf::MessageLite& request,
    const StreamOptions& options, EtcdGrpcCancel& cancel,
    const std::function<bool(std::string_view message)>& on_message) {
  Upload upload;
  if (!Frame(request, &upload.body)) {
    return {EtcdRpcCode::kResourceExhausted, "request larger than a gRPC message can be"};
  }
  HeaderList headers;
  AddRequestHeaders(headers, options.metadata);
  const std::string url = Url(method);
  Answer answer;
  answer.on_message = &on_message;

  // A handle and a connection of its own: a stream holds them for its life.
  std::unique_ptr<Handle> handle(NewHandle());
  CURL* easy = handle->easy;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_READFUNCTION, &OnUpload);
  curl_easy_setopt(easy, CURLOPT_READDATA, &upload);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnStreamBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &answer);

  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
  if (!multi) throw IoError("libcurl could not create a handle for the etcd client");
  curl_multi_add_handle(multi.get(), easy);
  EtcdRpcStatus status;
  bool finished = false;  // by the transfer itself, not by us
  if (!cancel.Attach(multi.get())) {
    status = {EtcdRpcCode::kCancelled, "Cancelled"};
  } else {
    for (;;) {
      int running = 0;
      const CURLMcode code = curl_multi_perform(multi.get(), &running);
      if (code != CURLM_OK) {
        status = {EtcdRpcCode::kInternal, curl_multi_strerror(code)};
        break;
      }
      if (!running) {
        finished = true;
        break;
      }
      if (answer.stopped) break;
      if (cancel.cancelled()) {
        status = {EtcdRpcCode::kCancelled, "Cancelled"};
        break;
      }
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(kStreamPollCap);
      if (options.probe) {
        const auto silent = Clock::now() - answer.last_byte;
        if (silent >= options.idle_probe_after) {
          if (!options.probe()) {
            status = {EtcdRpcCode::kUnavailable,
                      "etcd member " + endpoint_ + " stopped answering (keepalive probe failed)"};
            break;
          }
          answer.last_byte = Clock::now();
          continue;
        }
        wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  options.idle_probe_after - silent) +
                                  std::chrono::milliseconds(1));
      }
      curl_multi_poll(multi.get(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
    }
  }
  cancel.Detach();
  if (finished) {
    CURLcode result = CURLE_OK;
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi.get(), &left)) {
      if (message->msg == CURLMSG_DONE) result = message->data.result;
    }
    if (!answer.frame_error.empty()) {
      status = {EtcdRpcCode::kInternal, "etcd member " + endpoint_ + ": " + answer.frame_error};
    } else if (!answer.stopped) {
      status = StatusOf(result, handle->error, answer, endpoint_, tls_);
    }
  }
  // Removing a transfer still under way resets its HTTP/2 stream.
  curl_multi_remove_handle(multi.get(), easy);
  curl_easy_cleanup(easy);
  return status;
}

}  // namespace moraine::store
