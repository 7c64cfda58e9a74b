// One thread that runs posted tasks in order, off the caller's path. The prober uses it to
// open large DTM/DTZ files (mapping and checksumming them whole) without stalling a search.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace pythia::tb {

class BackgroundWorker {
public:
    // A task should give up soon once `cancel` is set (stop() waits for it).
    using Task = std::function<void(const std::atomic<bool>& cancel)>;

    BackgroundWorker() = default;
    ~BackgroundWorker() { stop(); }
    BackgroundWorker(const BackgroundWorker&) = delete;
    BackgroundWorker& operator=(const BackgroundWorker&) = delete;

    // Queues `task`, starting the thread if needed.
    void post(Task task);
    // Returns when every posted task has run.
    void wait_idle();
    // Drops the queued tasks, cancels the running one and joins the thread. post() may start
    // it again.
    void stop();

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_, idle_;
    std::deque<Task> queue_;
    std::thread thread_;
    std::atomic<bool> cancel_{false};
    bool stopping_ = false, busy_ = false;
};

}  // namespace pythia::tb
