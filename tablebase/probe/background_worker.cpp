#include "tablebase/probe/background_worker.h"

namespace pythia::tb {

void BackgroundWorker::post(Task task) {
    std::lock_guard<std::mutex> lock(mutex_);
    // A task posted while stop() runs (by the task it cancels: an open posts the building of the
    // file's checkpoints) is dropped with the others: what it refers to is about to go.
    if (stopping_) return;
    queue_.push_back(std::move(task));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    wake_.notify_one();
}

void BackgroundWorker::wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void BackgroundWorker::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        cancel_ = true;
        queue_.clear();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();
    stopping_ = false;
    cancel_ = false;
    idle_.notify_all();
}

void BackgroundWorker::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) break;
        Task task = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        task(cancel_);
        lock.lock();
        busy_ = false;
        if (queue_.empty()) idle_.notify_all();
    }
    busy_ = false;
}

}  // namespace pythia::tb
