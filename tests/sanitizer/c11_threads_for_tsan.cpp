// LD_PRELOADed into the ThreadSanitizer test run (scripts/test.sh): librdkafka 2.0.2 creates its
// threads and takes its locks through C11 <threads.h> (thrd_create, mtx_lock, cnd_wait), which
// neither GCC 12's nor clang 14's TSan runtime intercepts. A thread TSan never saw start
// crashes in TSan's first interceptor it calls ("SEGV on unknown address", "nested bug"), and
// locks it cannot see would hide the ordering librdkafka's callbacks rely on. glibc implements
// these functions on the pthread ones with the same object layouts (mtx_t is a
// pthread_mutex_t, cnd_t a pthread_cond_t, thrd_t a pthread_t, once_flag a pthread_once_t), so
// this file does the same through the pthread calls TSan does intercept. Test-only: never
// linked into anything that ships.
#include <pthread.h>

#include <cerrno>
#include <cstdint>
#include <ctime>
#include <new>

namespace {

// <threads.h>'s values in glibc.
constexpr int kSuccess = 0;
constexpr int kBusy = 1;
constexpr int kError = 2;
constexpr int kNoMem = 3;
constexpr int kTimedOut = 4;
constexpr int kMutexRecursive = 1;

int status(int error) {
  switch (error) {
    case 0:
      return kSuccess;
    case EBUSY:
      return kBusy;
    case ENOMEM:
      return kNoMem;
    case ETIMEDOUT:
      return kTimedOut;
    default:
      return kError;
  }
}

using ThreadStart = int (*)(void*);

struct Start {
  ThreadStart function;
  void* argument;
};

void* run(void* start) {
  const Start copy = *static_cast<Start*>(start);
  delete static_cast<Start*>(start);
  return reinterpret_cast<void*>(static_cast<intptr_t>(copy.function(copy.argument)));
}

}  // namespace

extern "C" {

int thrd_create(pthread_t* thread, ThreadStart function, void* argument) {
  auto* start = new (std::nothrow) Start{function, argument};
  if (start == nullptr) return kNoMem;
  const int error = pthread_create(thread, nullptr, run, start);
  if (error != 0) delete start;
  return status(error);
}

int thrd_join(pthread_t thread, int* result) {
  void* value = nullptr;
  const int error = pthread_join(thread, &value);
  if (error == 0 && result != nullptr) {
    *result = static_cast<int>(reinterpret_cast<intptr_t>(value));
  }
  return status(error);
}

pthread_t thrd_current() {
  return pthread_self();
}

int mtx_init(pthread_mutex_t* mutex, int type) {
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  if ((type & kMutexRecursive) != 0) {
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
  }
  const int error = pthread_mutex_init(mutex, &attributes);
  pthread_mutexattr_destroy(&attributes);
  return status(error);
}

int mtx_lock(pthread_mutex_t* mutex) {
  return status(pthread_mutex_lock(mutex));
}

int mtx_unlock(pthread_mutex_t* mutex) {
  return status(pthread_mutex_unlock(mutex));
}

void mtx_destroy(pthread_mutex_t* mutex) {
  pthread_mutex_destroy(mutex);
}

int cnd_init(pthread_cond_t* condition) {
  return status(pthread_cond_init(condition, nullptr));
}

int cnd_signal(pthread_cond_t* condition) {
  return status(pthread_cond_signal(condition));
}

int cnd_broadcast(pthread_cond_t* condition) {
  return status(pthread_cond_broadcast(condition));
}

int cnd_wait(pthread_cond_t* condition, pthread_mutex_t* mutex) {
  return status(pthread_cond_wait(condition, mutex));
}

int cnd_timedwait(pthread_cond_t* condition, pthread_mutex_t* mutex, const timespec* until) {
  return status(pthread_cond_timedwait(condition, mutex, until));
}

void cnd_destroy(pthread_cond_t* condition) {
  pthread_cond_destroy(condition);
}

void call_once(pthread_once_t* flag, void (*function)()) {
  pthread_once(flag, function);
}

}  // extern "C"
