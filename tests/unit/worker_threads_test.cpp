// WorkerThreads: the drain's wait for the workers counts a thread finished only once its body
// returned, and names the ones still busy.
#include "worker_threads.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <latch>
#include <stop_token>
#include <thread>

TEST_CASE("worker threads: the drain waits for every body and counts the busy ones", "[drain]") {
  std::latch release(1);
  std::atomic<int> ran{0};
  outbox::WorkerThreads workers(3, [&](int index) {
    ++ran;
    // Worker 1 stays busy until the test lets it go (a worker inside a MySQL statement).
    if (index == 1) release.wait();
  });
  REQUIRE(workers.size() == 3);
  // Workers 0 and 2 finish on their own; 1 cannot before the latch opens.
  while (workers.busy() > 1)
    std::this_thread::yield();
  CHECK(workers.busy() == 1);
  CHECK_FALSE(workers.wait_finished(std::chrono::steady_clock::now()));
  release.count_down();
  CHECK(workers.wait_finished(std::chrono::steady_clock::now() + std::chrono::hours(1)));
  CHECK(workers.busy() == 0);
  CHECK(ran.load() == 3);
  workers.join();
}

TEST_CASE("worker threads: the wait for the stop returns once it is requested", "[drain]") {
  std::stop_source stop;
  outbox::WorkerThreads workers(2, [&](int) {
    // Each body ends only after the stop: the wait must return on the stop, not on them.
    while (!stop.stop_requested())
      std::this_thread::yield();
  });
  std::thread stopper([&] { stop.request_stop(); });
  workers.wait_for_stop(stop.get_token());
  CHECK(stop.stop_requested());
  stopper.join();
  CHECK(workers.wait_finished(std::chrono::steady_clock::now() + std::chrono::hours(1)));
}
