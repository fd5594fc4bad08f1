// Read-only memory mapping of files (whole, or a window of one), exposed as
// external ArrayBuffers.
//
// One ArrayBuffer holds at most 4 GiB in Node (and 2^31 - 1 bytes in some
// runtimes), while a .beton file can be hundreds of GB: callers map large
// files in windows (mmapFile(path, offset, length)), each its own mapping and
// ArrayBuffer; a whole-file map of a file too large for one buffer is refused
// with a message saying so.
//
// A .beton file is read at random sample offsets; mapping it lets the page
// cache serve those reads without a copy into the JS heap. The mapping lives
// exactly as long as the ArrayBuffer: V8's finalizer unmaps it.
//
// Caveat inherent to MAP_SHARED: if another process truncates the file while
// it is mapped, touching the vanished pages raises SIGBUS. Datasets are
// treated as immutable once written, so we accept that rather than paying for
// a copy.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "args.h"
#include "beton_native.h"
#include "errors.h"

namespace beton {
namespace {

// Base address -> length of every live mapping created here. madvise() only
// acts on buffers found in this table, so JS cannot make us advise arbitrary
// heap memory. Guarded by a mutex because worker threads may load the addon
// concurrently, and finalizers of different environments can interleave.
std::mutex g_mappings_mutex;
std::unordered_map<const void*, size_t> g_mappings;

void RegisterMapping(const void* base, size_t length) {
  std::lock_guard<std::mutex> lock(g_mappings_mutex);
  g_mappings[base] = length;
}

void UnregisterMapping(const void* base) {
  std::lock_guard<std::mutex> lock(g_mappings_mutex);
  g_mappings.erase(base);
}

bool IsLiveMapping(const void* base, size_t length) {
  std::lock_guard<std::mutex> lock(g_mappings_mutex);
  auto found = g_mappings.find(base);
  return found != g_mappings.end() && found->second == length;
}

void FinalizeMapping(napi_env /*env*/, void* data, void* hint) {
  // The length travels in the hint pointer to avoid a heap allocation per map.
  size_t length = reinterpret_cast<size_t>(hint);
  UnregisterMapping(data);
  munmap(data, length);
}

std::string SystemError(const char* what, const std::string& path, int err) {
  return std::string(what) + " '" + path + "': " + std::strerror(err);
}

// Closes the descriptor on every exit path, including thrown JS errors.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Used only where the runtime forbids external buffers (Electron's V8 memory
// cage): the data has to live inside the JS heap, so read it in with pread,
// which, unlike memcpy from a mapping, fails cleanly on a concurrently
// truncated file.
Napi::Value ReadRange(Napi::Env env, int fd, uint64_t offset, size_t size,
                      const std::string& path) {
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, size);
  uint8_t* out = static_cast<uint8_t*>(buffer.Data());
  size_t done = 0;
  while (done < size) {
    // pread may return less than asked (Linux caps one call near 2 GiB): loop.
    ssize_t got = pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw MakeError(env, kErrIo, SystemError("cannot read", path, errno));
    if (got == 0) {
      throw MakeError(env, kErrIo, "file '" + path + "' shrank while being read");
    }
    done += static_cast<size_t>(got);
  }
  return buffer;
}

// The path argument at `index`: a string without NUL bytes.
std::string RequirePath(const Napi::CallbackInfo& info, size_t index) {
  std::string path = RequireString(info, index, "path");
  if (path.find('\0') != std::string::npos) {
    throw Napi::TypeError::New(info.Env(), "path must not contain NUL bytes");
  }
  return path;
}

// Opens `path` read-only into `fd` and returns its size; anything but a
// regular file is an error (a directory or FIFO cannot be mapped).
size_t OpenRegularFile(Napi::Env env, const std::string& path, FileDescriptor& fd) {
  if (fd.get() < 0) throw MakeError(env, kErrIo, SystemError("cannot open", path, errno));
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    throw MakeError(env, kErrIo, SystemError("cannot stat", path, errno));
  }
  if (!S_ISREG(st.st_mode)) {
    throw MakeError(env, kErrIo, "cannot map '" + path + "': not a regular file");
  }
  return static_cast<size_t>(st.st_size);
}

}  // namespace

// The largest ArrayBuffer we hand out: Node 20 refuses external buffers above
// 4 GiB ("Cannot create a Buffer larger than 0x100000000 bytes").
constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 32;

// mmapFile(path[, offset, length]): the whole file, or the window
// [offset, offset + length) clipped to the file's end. `offset` must be a
// multiple of the system page size (mmap's rule).
Napi::Value MmapFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = RequirePath(info, 0);
  const bool window = info.Length() > 1 && !info[1].IsUndefined();
  const int64_t kMaxOffset = INT64_C(1) << 53;
  uint64_t offset = window ? static_cast<uint64_t>(RequireInteger(info, 1, "offset", 0, kMaxOffset)) : 0;
  uint64_t want = window ? static_cast<uint64_t>(RequireInteger(info, 2, "length", 0, kMaxBufferBytes)) : 0;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (offset % page != 0) {
    throw Napi::RangeError::New(env, "offset must be a multiple of the system page size (" + std::to_string(page) + ")");
  }
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  const uint64_t file_size = OpenRegularFile(env, path, fd);
  if (window && offset > file_size) {
    throw Napi::RangeError::New(env, "offset " + std::to_string(offset) + " is past the end of '" + path + "' (" +
                                         std::to_string(file_size) + " bytes)");
  }
  const uint64_t size64 = window ? std::min(want, file_size - offset) : file_size;
  if (size64 > kMaxBufferBytes) {
    throw MakeError(env, kErrIo,
                    "cannot map '" + path + "' whole: " + std::to_string(file_size) +
                        " bytes is more than one ArrayBuffer holds (4 GiB); map it in windows (offset, length)");
  }
  const size_t size = static_cast<size_t>(size64);
  // mmap rejects zero-length mappings, and there is nothing to share anyway.
  if (size == 0) return Napi::ArrayBuffer::New(env, 0);

  void* base = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), static_cast<off_t>(offset));
  if (base == MAP_FAILED) {
    throw MakeError(env, kErrIo, SystemError("cannot mmap", path, errno));
  }

  RegisterMapping(base, size);
  napi_value result;
  napi_status status = napi_create_external_arraybuffer(
      env, base, size, FinalizeMapping, reinterpret_cast<void*>(size), &result);
  if (status == napi_ok) return Napi::Value(env, result);

  // The finalizer was not attached, so the mapping is still ours to release.
  UnregisterMapping(base);
  munmap(base, size);
  if (status == napi_no_external_buffers_allowed) {
    return ReadRange(env, fd.get(), offset, size, path);
  }
  // A pending exception (e.g. size above V8's ArrayBuffer limit) must not be
  // masked by a new one; Error::New(env) picks it up.
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) throw Napi::Error::New(env);
  throw MakeError(env, kErrIo, "cannot wrap mapping of '" + path + "' in an ArrayBuffer");
}

Napi::Value Madvise(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArrayBuffer()) {
    throw Napi::TypeError::New(env, "buffer must be an ArrayBuffer returned by mmapFile");
  }
  Napi::ArrayBuffer buffer = info[0].As<Napi::ArrayBuffer>();
  size_t byte_length = buffer.ByteLength();
  int64_t offset = RequireInteger(info, 1, "offset", 0, INT64_C(1) << 53);
  int64_t length = RequireInteger(info, 2, "length", 0, INT64_C(1) << 53);
  std::string advice_name = RequireString(info, 3, "advice");

  int advice;
  if (advice_name == "willneed") {
    advice = MADV_WILLNEED;
  } else if (advice_name == "random") {
    advice = MADV_RANDOM;
  } else if (advice_name == "sequential") {
    advice = MADV_SEQUENTIAL;
  } else if (advice_name == "normal") {
    advice = MADV_NORMAL;
  } else {
    throw Napi::TypeError::New(
        env, "advice must be 'willneed', 'random', 'sequential' or 'normal'");
  }
  if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) > byte_length) {
    throw Napi::RangeError::New(env, "offset + length exceeds the buffer");
  }

  // Heap copies (Electron fallback, empty files) are not mappings: advice
  // would be meaningless there, so report that nothing was done.
  uint8_t* base = static_cast<uint8_t*>(buffer.Data());
  if (base == nullptr || length == 0 || !IsLiveMapping(base, byte_length)) {
    return Napi::Boolean::New(env, false);
  }

  // madvise wants a page-aligned start; widening the range to whole pages is
  // harmless since advice is only a hint.
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(offset);
  uintptr_t aligned = start & ~(page - 1);
  size_t span = static_cast<size_t>(length) + (start - aligned);
  if (madvise(reinterpret_cast<void*>(aligned), span, advice) != 0) {
    throw MakeError(env, kErrIo, std::string("madvise failed: ") + std::strerror(errno));
  }
  return Napi::Boolean::New(env, true);
}

// pageCacheResidency(path) -> { residentBytes, sizeBytes }: how much of the
// file the OS page cache holds now, by mincore(2) over a fresh mapping (the
// mapping alone faults nothing in). The profiler calls this once per point.
Napi::Value PageCacheResidency(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = RequirePath(info, 0);
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  size_t size = OpenRegularFile(env, path, fd);
  Napi::Object result = Napi::Object::New(env);
  result.Set("sizeBytes", Napi::Number::New(env, static_cast<double>(size)));
  if (size == 0) {
    result.Set("residentBytes", Napi::Number::New(env, 0));
    return result;
  }
  void* base = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (base == MAP_FAILED) throw MakeError(env, kErrIo, SystemError("cannot mmap", path, errno));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t pages = (size + page - 1) / page;
  // In chunks, so a huge file needs no huge vector (one byte per page).
  constexpr size_t kChunkPages = size_t{1} << 16;
  std::vector<unsigned char> vec(kChunkPages);
#ifdef __APPLE__
  char* bits = reinterpret_cast<char*>(vec.data());  // macOS declares the vector as char*
#else
  unsigned char* bits = vec.data();
#endif
  size_t resident = 0;
  for (size_t first = 0; first < pages; first += kChunkPages) {
    size_t n = std::min(kChunkPages, pages - first);
    uint8_t* at = static_cast<uint8_t*>(base) + first * page;
    size_t len = std::min(n * page, size - first * page);
    if (mincore(at, len, bits) != 0) {
      int err = errno;
      munmap(base, size);
      throw MakeError(env, kErrIo, SystemError("mincore failed on", path, err));
    }
    for (size_t k = 0; k < n; k++) resident += bits[k] & 1;
  }
  munmap(base, size);
  // Whole pages: the last partial page counts whole, so clamp to the size.
  result.Set("residentBytes", Napi::Number::New(env, static_cast<double>(std::min(resident * page, size))));
  return result;
}

}  // namespace beton
