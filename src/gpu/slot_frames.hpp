// The frame each result slot of a GPU twin holds, for the checks every twin's enqueue() and
// finish() make, on every backend.
#pragma once

#include <string>
#include <vector>

#include "base/error.hpp"

namespace vmafx {

/// The frame each result slot of a twin holds: a slot number beyond the twin's count, or
/// finish() asking for another frame than the one enqueued in the slot, is an internal error
/// (Error naming the twin and its backend, e.g. "psnr (CUDA)").
class SlotFrames {
public:
    SlotFrames(std::string twin, unsigned slots) : twin_(std::move(twin)), index_(slots, 0) {}
    /// Records that `slot` now holds frame `index`; throws when there is no such slot.
    void enqueued(unsigned slot, unsigned index) {
        check(slot);
        index_[slot] = index;
    }
    /// Throws unless `slot` exists and holds frame `index`.
    void check_holds(unsigned slot, unsigned index) const {
        check(slot);
        if (index_[slot] != index)
            throw Error(twin_ + ": internal: slot " + std::to_string(slot) + " holds frame " +
                        std::to_string(index_[slot]) + ", not " + std::to_string(index));
    }

private:
    void check(unsigned slot) const {
        if (slot >= index_.size())
            throw Error(twin_ + ": internal: slot " + std::to_string(slot) + " of " + std::to_string(index_.size()));
    }

    std::string twin_;
    std::vector<unsigned> index_;
};

}  // namespace vmafx
