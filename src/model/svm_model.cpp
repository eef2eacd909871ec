#include "model/svm_model.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "feature/feature_extractor.hpp"

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
        if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
            throw fail(fmt::format("{}: \"{}\" is not a finite number", what, s));
        return v;
    }

    int to_int(std::string_view token, const char* what) const {
        const std::string s(token);
        errno = 0;
        char* end = nullptr;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
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

SvmModel::SvmModel(std::string_view text, const std::string& where) {
    const Parser p(where);
    Tokens tokens(text);

    std::optional<int> svm_type, kernel_type, nr_class, total_sv;
    svm_parameter& param = model_.param;

    // Header, up to the "SV" token (upstream svm.cpp SVMModelParser::parse_header).
    for (std::string_view key = tokens.next();; key = tokens.next()) {
        if (key.empty()) throw p.fail("no \"SV\" line");
        if (key == "SV") break;
        const auto array_len = [&](const char* what) -> std::size_t {
            if (!nr_class) throw p.fail(fmt::format("{} comes before nr_class", what));
            return key == "label" || key == "nr_sv"
                       ? static_cast<std::size_t>(*nr_class)
                       : static_cast<std::size_t>(*nr_class) * (*nr_class - 1) / 2;
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
            if (*nr_class < 2 || *nr_class > 65536)
                throw p.fail(fmt::format("nr_class {} is not in [2, 65536]", *nr_class));
        } else if (key == "total_sv") {
            total_sv = p.to_int(p.need(tokens, "total_sv"), "total_sv");
            if (*total_sv < 0) throw p.fail("total_sv is negative");
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
    const bool classification = *svm_type == C_SVC || *svm_type == NU_SVC;
    if (classification) {
        if (label_.empty() || n_sv_.empty()) throw p.fail("a classification model needs label and nr_sv");
        long sum = 0;
        for (int n : n_sv_) {
            if (n < 0) throw p.fail("nr_sv is negative");
            sum += n;
        }
        if (sum != *total_sv) throw p.fail("nr_sv does not add up to total_sv");
    }

    // Support vectors, one per line (upstream parse_support_vectors).
    const int n_coef = *nr_class - 1;
    coef_.assign(static_cast<std::size_t>(n_coef), std::vector<double>(static_cast<std::size_t>(*total_sv)));
    std::vector<std::size_t> starts;
    starts.reserve(static_cast<std::size_t>(*total_sv));
    std::string_view rest = tokens.rest_after_line();
    for (int i = 0; i < *total_sv; ++i) {
        if (rest.empty()) throw p.fail(fmt::format("{} support vectors, but total_sv is {}", i, *total_sv));
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);

        Tokens fields(line);
        for (int c = 0; c < n_coef; ++c) {
            const std::string_view tok = fields.next();
            if (tok.empty()) throw p.fail(fmt::format("support vector {} has too few coefficients", i + 1));
            coef_[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)] = p.to_double(tok, "SV coefficient");
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
