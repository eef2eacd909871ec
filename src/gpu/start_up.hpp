// A GPU backend's start-up (loading the driver, creating the context or device), run once on a
// thread of its own so that it overlaps what the run does before its first device call
// (DeviceApi::prepare and unavailable_reason, gpu/device_api.hpp). Knows no backend.
#pragma once

#include <future>
#include <mutex>
#include <string>
#include <system_error>

namespace vmafx::gpu {

/// The start-up `work` (returning "" when a device is usable, else why not), run at most once.
class StartUp {
public:
    explicit StartUp(std::string (*work)()) : work_(work) {}

    /// Starts the work on a thread of its own (on this one when no thread can be had).
    /// Idempotent; never throws.
    void start() {
        std::call_once(once_, [this] {
            try {
                outcome_ = std::async(std::launch::async, work_).share();
            } catch (const std::system_error&) {  // no thread to spare: start up on this one
                std::promise<std::string> now;
                now.set_value(work_());
                outcome_ = now.get_future().share();
            }
        });
    }

    /// The work's outcome, waiting for it (starting it if need be).
    std::string wait() {
        start();
        return outcome_.get();
    }

private:
    std::string (*work_)();
    std::once_flag once_;
    std::shared_future<std::string> outcome_;
};

}  // namespace vmafx::gpu
