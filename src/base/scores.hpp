// Scores of frames: one frame's (output name, value) list and a whole run's table.
// The ground floor: includes nothing of vmafx.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vmafx {

/// Scores of one frame, as (output name, value) in the order the extractor writes them.
using FrameScores = std::vector<std::pair<std::string, double>>;

/// Per-frame scores of a whole run, by output name; frames not written are empty.
class ScoreTable {
public:
    /// Stores `value` as frame `index` of output `name`, replacing what was there; a new name
    /// is appended to names(), and the name's frame slots grow to index + 1 (empty between).
    void set(const std::string& name, unsigned index, double value);
    /// Frame `index` of output `name`; nullopt when the name is unknown or that frame was not
    /// written.
    std::optional<double> get(const std::string& name, unsigned index) const;
    /// Names in order of first write, or as reorder() put them.
    const std::vector<std::string>& names() const { return order_; }
    /// Puts the names in the order `names` gives; throws std::invalid_argument unless it holds
    /// each name of names() exactly once.
    void reorder(std::vector<std::string> names);
    /// The frame slots of `name` (index = frame; empty where not written), or nullptr when the
    /// name is unknown: for readers that visit every frame of a name (the writers). Valid until
    /// the next set().
    const std::vector<std::optional<double>>* slots(const std::string& name) const;
    /// Number of frame slots of `name` (highest written index + 1; 0 if none).
    unsigned frames(const std::string& name) const;
    /// Highest frame slot count over all names.
    unsigned max_frames() const;

    /// Stores the run-wide value `value` of aggregate `name` (upstream's
    /// vmaf_feature_collector_set_aggregate, e.g. psnr's apsnr_y), replacing what was there;
    /// a new name is appended to aggregates().
    void set_aggregate(const std::string& name, double value);
    /// Aggregate metrics, (name, value) in order of first write.
    const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

private:
    std::map<std::string, std::vector<std::optional<double>>> scores_;
    std::vector<std::string> order_;
    std::vector<std::pair<std::string, double>> aggregates_;
};

}  // namespace vmafx
