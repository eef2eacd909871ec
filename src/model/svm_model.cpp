#include "model/svm_model.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"

namespace vmafx {

namespace {

// libsvm's names of svm_type and kernel_type values, indexed by the enum values of svm.h.
constexpr const char* kSvmTypes[] = {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"};
constexpr const char* kKernelTypes[] = {"linear", "polynomial", "rbf", "sigmoid", "precomputed"};

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads whitespace-separated tokens of a text, remembering where it stopped.
class Tokens {
public:
    explicit Tokens(std::string_view text) : text_(text) {}
    /// The next token, or empty at the end of the text.
    std::string_view next() {
        while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
        return text_.substr(start, pos_ - start);
    }
    /// How many of the next tokens, up to `limit`, come before a token "SV" (or the end of
    /// the text); does not move the position. Costs at most `limit` tokens' scanning.
    std::size_t count_before_sv(std::size_t limit) const {
        Tokens ahead = *this;
        std::size_t n = 0;
        for (; n < limit; ++n) {
            const std::string_view tok = ahead.next();
            if (tok.empty() || tok == "SV") break;
        }
        return n;
    }
    /// The text after the end of the current line.
    std::string_view rest_after_line() const {
        const std::size_t nl = text_.find('\n', pos_);
        return nl == std::string_view::npos ? std::string_view() : text_.substr(nl + 1);
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

class Parser {
public:
    explicit Parser(const std::string& where) : where_(where) {}

    Error fail(const std::string& what) const {
        return Error(fmt::format("{}: bad libsvm model text: {}", where_, what));
    }

    double to_double(std::string_view token, const char* what) const {
        const std::string s(token);
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
            throw fail(fmt::format("{}: \"{}\" is not a finite number", what, s));
        return v;
    }

    int to_int(std::string_view token, const char* what) const {
        const std::string s(token);
        errno = 0;
        char* end = nullptr;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || v < INT_MIN || v > INT_MAX)
            throw fail(fmt::format("{}: \"{}\" is not an integer", what, s));
        return static_cast<int>(v);
    }

    std::string_view need(Tokens& t, const char* what) const {
        const std::string_view tok = t.next();
        if (tok.empty()) throw fail(fmt::format("{}: text ends early", what));
        return tok;
    }

private:
    const std::string& where_;
};

template <std::size_t N>
int table_index(const char* const (&table)[N], std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (name == table[i]) return static_cast<int>(i);
    return -1;
}

}  // namespace

namespace {

// How many lines `text` has (a last line without a newline counts), counting at most `limit`.
std::size_t count_lines(std::string_view text, std::size_t limit) {
    std::size_t n = 0;
    for (std::size_t pos = 0; n < limit && pos < text.size(); ++n) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) return n + 1;
        pos = nl + 1;
    }
    return n;
}

}  // namespace

SvmModel::SvmModel(std::string_view text, const std::string& where) {
    const Parser p(where);
    Tokens tokens(text);

    std::optional<int> svm_type, kernel_type, nr_class, total_sv;
    svm_parameter& param = model_.param;
    std::vector<std::string_view> seen;  // header keys read so far: each may appear once

    // Header, up to the "SV" token (upstream svm.cpp SVMModelParser::parse_header). Every
    // count is checked against the text before anything is allocated for it, so memory stays
    // proportional to the text whatever its numbers say.
    for (std::string_view key = tokens.next();; key = tokens.next()) {
        if (key.empty()) throw p.fail("no \"SV\" line");
        if (key == "SV") break;
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            throw p.fail(fmt::format("header entry \"{}\" is given twice", key));
        seen.push_back(key);
        // The entries of an array (label, nr_sv: nr_class; rho, probA, probB: one per pair
        // of classes), which must all be in the header.
        const auto array_len = [&](const char* what) -> std::size_t {
            if (!nr_class) throw p.fail(fmt::format("{} comes before nr_class", what));
            const auto k = static_cast<std::size_t>(*nr_class);
            const bool per_class = key == "label" || key == "nr_sv";
            const std::size_t n = per_class ? k : k * (k - 1) / 2;
            const std::size_t present = tokens.count_before_sv(n);
            if (present < n)
                throw p.fail(fmt::format("{} needs {} numbers ({}nr_class {}) but the header holds {}", what, n,
                                         per_class ? "" : "nr_class*(nr_class-1)/2 for ", *nr_class, present));
            return n;
        };
        if (key == "svm_type") {
            const std::string_view v = p.need(tokens, "svm_type");
            svm_type = table_index(kSvmTypes, v);
            if (*svm_type < 0) throw p.fail(fmt::format("unknown svm_type \"{}\"", v));
        } else if (key == "kernel_type") {
            const std::string_view v = p.need(tokens, "kernel_type");
            kernel_type = table_index(kKernelTypes, v);
            if (*kernel_type < 0) throw p.fail(fmt::format("unknown kernel_type \"{}\"", v));
        } else if (key == "degree") {
            param.degree = p.to_int(p.need(tokens, "degree"), "degree");
        } else if (key == "gamma") {
            param.gamma = p.to_double(p.need(tokens, "gamma"), "gamma");
        } else if (key == "coef0") {
            param.coef0 = p.to_double(p.need(tokens, "coef0"), "coef0");
        } else if (key == "nr_class") {
            nr_class = p.to_int(p.need(tokens, "nr_class"), "nr_class");
            if (*nr_class < 2 || *nr_class > kMaxSvmClasses)
                throw p.fail(fmt::format("nr_class {} is not in [2, {}]", *nr_class, kMaxSvmClasses));
        } else if (key == "total_sv") {
            total_sv = p.to_int(p.need(tokens, "total_sv"), "total_sv");
            if (*total_sv < 0) throw p.fail(fmt::format("total_sv {} is negative", *total_sv));
        } else if (key == "rho" || key == "probA" || key == "probB") {
            const char* what = key == "rho" ? "rho" : key == "probA" ? "probA" : "probB";
            std::vector<double>& dst = key == "rho" ? rho_ : key == "probA" ? prob_a_ : prob_b_;
            dst.resize(array_len(what));
            for (double& v : dst) v = p.to_double(p.need(tokens, what), what);
        } else if (key == "label" || key == "nr_sv") {
            const char* what = key == "label" ? "label" : "nr_sv";
            std::vector<int>& dst = key == "label" ? label_ : n_sv_;
            dst.resize(array_len(what));
            for (int& v : dst) v = p.to_int(p.need(tokens, what), what);
        } else {
            throw p.fail(fmt::format("unknown header entry \"{}\"", key));
        }
    }

    if (!svm_type) throw p.fail("no svm_type");
    if (!kernel_type) throw p.fail("no kernel_type");
    if (*kernel_type == PRECOMPUTED) throw p.fail("the precomputed kernel is not supported");
    if (!nr_class) throw p.fail("no nr_class");
    if (!total_sv) throw p.fail("no total_sv");
    if (rho_.empty()) throw p.fail("no rho");
    // libsvm's svm_predict reads label and nr_sv (nr_class entries each) of a classification
    // model and walks nr_sv[i] support vectors per class: they must cover total_sv exactly.
    const bool classification = *svm_type == C_SVC || *svm_type == NU_SVC;
    if (classification) {
        if (label_.empty() || n_sv_.empty()) throw p.fail("a classification model needs label and nr_sv");
        long sum = 0;
        for (int n : n_sv_) {
            if (n < 0) throw p.fail(fmt::format("nr_sv {} is negative", n));
            sum += n;
        }
        if (sum != *total_sv)
            throw p.fail(fmt::format("nr_sv adds up to {}, not to total_sv {}", sum, *total_sv));
    }

    // Support vectors, one per line (upstream parse_support_vectors). The lines are counted
    // first, so that an absurd total_sv is refused before anything is allocated; the vectors
    // then grow with what each line holds.
    std::string_view rest = tokens.rest_after_line();
    const std::size_t lines = count_lines(rest, static_cast<std::size_t>(*total_sv));
    if (lines < static_cast<std::size_t>(*total_sv))
        throw p.fail(fmt::format("total_sv {} but the text holds {} support-vector line{}", *total_sv, lines,
                                 lines == 1 ? "" : "s"));
    const int n_coef = *nr_class - 1;
    coef_.assign(static_cast<std::size_t>(n_coef), {});
    std::vector<std::size_t> starts;
    for (int i = 0; i < *total_sv; ++i) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);

        Tokens fields(line);
        for (int c = 0; c < n_coef; ++c) {
            const std::string_view tok = fields.next();
            if (tok.empty()) throw p.fail(fmt::format("support vector {} has too few coefficients", i + 1));
            coef_[static_cast<std::size_t>(c)].push_back(p.to_double(tok, "SV coefficient"));
        }
        starts.push_back(nodes_.size());
        for (std::string_view tok = fields.next(); !tok.empty(); tok = fields.next()) {
            const std::size_t colon = tok.find(':');
            if (colon == std::string_view::npos)
                throw p.fail(fmt::format("support vector {}: \"{}\" is not INDEX:VALUE", i + 1, tok));
            svm_node node{};
            node.index = p.to_int(tok.substr(0, colon), "SV index");
            if (node.index < 1) throw p.fail(fmt::format("support vector {}: index {} < 1", i + 1, node.index));
            node.value = p.to_double(tok.substr(colon + 1), "SV value");
            nodes_.push_back(node);
        }
        nodes_.push_back(svm_node{-1, 0.0});
    }

    // Point libsvm's struct into the vectors, which no longer change.
    for (std::size_t s : starts) sv_.push_back(nodes_.data() + s);
    for (auto& row : coef_) coef_rows_.push_back(row.data());
    param.svm_type = *svm_type;
    param.kernel_type = *kernel_type;
    model_.nr_class = *nr_class;
    model_.l = *total_sv;
    model_.SV = sv_.data();
    model_.sv_coef = coef_rows_.data();
    model_.rho = rho_.data();
    model_.probA = prob_a_.empty() ? nullptr : prob_a_.data();
    model_.probB = prob_b_.empty() ? nullptr : prob_b_.data();
    model_.sv_indices = nullptr;
    model_.label = label_.empty() ? nullptr : label_.data();
    model_.nSV = n_sv_.empty() ? nullptr : n_sv_.data();
    model_.free_sv = 0;
}

double SvmModel::predict(std::span<const svm_node> x) const {
    if (x.empty() || x.back().index != -1) throw Error("internal: svm input vector not ended by index -1");
    return svm_predict(&model_, x.data());
}

}  // namespace vmafx
