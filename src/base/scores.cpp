#include "base/scores.hpp"

#include <algorithm>
#include <stdexcept>

namespace vmafx {

void ScoreTable::set(const std::string& name, unsigned index, double value) {
    auto [it, inserted] = scores_.try_emplace(name);
    if (inserted) order_.push_back(name);
    if (it->second.size() <= index) it->second.resize(index + 1);
    it->second[index] = value;
}

std::optional<double> ScoreTable::get(const std::string& name, unsigned index) const {
    auto it = scores_.find(name);
    if (it == scores_.end() || index >= it->second.size()) return std::nullopt;
    return it->second[index];
}

const std::vector<std::optional<double>>* ScoreTable::slots(const std::string& name) const {
    auto it = scores_.find(name);
    return it == scores_.end() ? nullptr : &it->second;
}

unsigned ScoreTable::frames(const std::string& name) const {
    auto it = scores_.find(name);
    return it == scores_.end() ? 0u : static_cast<unsigned>(it->second.size());
}

unsigned ScoreTable::max_frames() const {
    unsigned n = 0;
    for (const auto& [name, v] : scores_) n = std::max(n, static_cast<unsigned>(v.size()));
    return n;
}

void ScoreTable::reorder(std::vector<std::string> names) {
    std::vector<std::string> sorted = names, current = order_;
    std::sort(sorted.begin(), sorted.end());
    std::sort(current.begin(), current.end());
    if (sorted != current) throw std::invalid_argument("ScoreTable::reorder: not a permutation of the names");
    order_ = std::move(names);
}

void ScoreTable::set_aggregate(const std::string& name, double value) {
    for (auto& [n, v] : aggregates_)
        if (n == name) {
            v = value;
            return;
        }
    aggregates_.emplace_back(name, value);
}

}  // namespace vmafx
