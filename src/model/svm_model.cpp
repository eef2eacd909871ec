#include "model/svm_model.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/libm.hpp"

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

// The header's scalars (absent until read).
struct Header {
    std::optional<int> svm_type, kernel_type, nr_class, total_sv;
};

// Where the header's arrays go: the model's vectors.
struct HeaderArrays {
    std::vector<double>& rho;
    std::vector<double>& prob_a;
    std::vector<double>& prob_b;
    std::vector<int>& label;
    std::vector<int>& n_sv;
};

// The length of header array `key` (label, nr_sv: nr_class; rho, probA, probB: one per pair of
// classes), after checking that nr_class came first and that the header holds that many
// numbers before "SV" (counted without allocating).
std::size_t array_length(std::string_view key, const char* what, const Header& h, const Tokens& tokens,
                         const Parser& p) {
    if (!h.nr_class) throw p.fail(fmt::format("{} comes before nr_class", what));
    const auto k = static_cast<std::size_t>(*h.nr_class);
    const bool per_class = key == "label" || key == "nr_sv";
    const std::size_t n = per_class ? k : k * (k - 1) / 2;
    const std::size_t present = tokens.count_before_sv(n);
    if (present < n)
        throw p.fail(fmt::format("{} needs {} numbers ({}nr_class {}) but the header holds {}", what, n,
                                 per_class ? "" : "nr_class*(nr_class-1)/2 for ", *h.nr_class, present));
    return n;
}

// Reads the value(s) of header entry `key` from `tokens` into the header, libsvm's parameters
// or the arrays; throws for an unknown key or a bad value.
void read_header_entry(std::string_view key, Tokens& tokens, const Parser& p, Header& h, svm_parameter& param,
                       const HeaderArrays& arrays) {
    if (key == "svm_type") {
        const std::string_view v = p.need(tokens, "svm_type");
        h.svm_type = table_index(kSvmTypes, v);
        if (*h.svm_type < 0) throw p.fail(fmt::format("unknown svm_type \"{}\"", v));
    } else if (key == "kernel_type") {
        const std::string_view v = p.need(tokens, "kernel_type");
        h.kernel_type = table_index(kKernelTypes, v);
        if (*h.kernel_type < 0) throw p.fail(fmt::format("unknown kernel_type \"{}\"", v));
    } else if (key == "degree") {
        param.degree = p.to_int(p.need(tokens, "degree"), "degree");
    } else if (key == "gamma") {
        param.gamma = p.to_double(p.need(tokens, "gamma"), "gamma");
    } else if (key == "coef0") {
        param.coef0 = p.to_double(p.need(tokens, "coef0"), "coef0");
    } else if (key == "nr_class") {
        h.nr_class = p.to_int(p.need(tokens, "nr_class"), "nr_class");
        if (*h.nr_class < 2 || *h.nr_class > kMaxSvmClasses)
            throw p.fail(fmt::format("nr_class {} is not in [2, {}]", *h.nr_class, kMaxSvmClasses));
    } else if (key == "total_sv") {
        h.total_sv = p.to_int(p.need(tokens, "total_sv"), "total_sv");
        if (*h.total_sv < 0) throw p.fail(fmt::format("total_sv {} is negative", *h.total_sv));
    } else if (key == "rho" || key == "probA" || key == "probB") {
        const char* what = key == "rho" ? "rho" : key == "probA" ? "probA" : "probB";
        std::vector<double>& dst = key == "rho" ? arrays.rho : key == "probA" ? arrays.prob_a : arrays.prob_b;
        dst.resize(array_length(key, what, h, tokens, p));
        for (double& v : dst) v = p.to_double(p.need(tokens, what), what);
    } else if (key == "label" || key == "nr_sv") {
        const char* what = key == "label" ? "label" : "nr_sv";
        std::vector<int>& dst = key == "label" ? arrays.label : arrays.n_sv;
        dst.resize(array_length(key, what, h, tokens, p));
        for (int& v : dst) v = p.to_int(p.need(tokens, what), what);
    } else {
        throw p.fail(fmt::format("unknown header entry \"{}\"", key));
    }
}

// The header, up to the "SV" token (upstream svm.cpp SVMModelParser::parse_header): each entry
// at most once. Every count is checked against the text before anything is allocated for it, so
// memory stays proportional to the text whatever its numbers say.
Header read_header(Tokens& tokens, const Parser& p, svm_parameter& param, const HeaderArrays& arrays) {
    Header h;
    std::vector<std::string_view> seen;  // header keys read so far
    for (std::string_view key = tokens.next();; key = tokens.next()) {
        if (key.empty()) throw p.fail("no \"SV\" line");
        if (key == "SV") break;
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            throw p.fail(fmt::format("header entry \"{}\" is given twice", key));
        seen.push_back(key);
        read_header_entry(key, tokens, p, h, param, arrays);
    }
    return h;
}

// What a usable model's header must hold: svm_type, a kernel other than the precomputed one,
// nr_class, total_sv, rho; for classification (c_svc, nu_svc), label and nr_sv with nr_sv adding
// up to total_sv (libsvm's svm_predict walks nr_sv[i] support vectors per class).
void check_header(const Header& h, const HeaderArrays& arrays, const Parser& p) {
    if (!h.svm_type) throw p.fail("no svm_type");
    if (!h.kernel_type) throw p.fail("no kernel_type");
    if (*h.kernel_type == PRECOMPUTED) throw p.fail("the precomputed kernel is not supported");
    if (!h.nr_class) throw p.fail("no nr_class");
    if (!h.total_sv) throw p.fail("no total_sv");
    if (arrays.rho.empty()) throw p.fail("no rho");
    const bool classification = *h.svm_type == C_SVC || *h.svm_type == NU_SVC;
    if (classification) {
        if (arrays.label.empty() || arrays.n_sv.empty()) throw p.fail("a classification model needs label and nr_sv");
        long sum = 0;
        for (int n : arrays.n_sv) {
            if (n < 0) throw p.fail(fmt::format("nr_sv {} is negative", n));
            sum += n;
        }
        if (sum != *h.total_sv)
            throw p.fail(fmt::format("nr_sv adds up to {}, not to total_sv {}", sum, *h.total_sv));
    }
}

// The support vectors after the "SV" line, one per line (upstream parse_support_vectors):
// `n_coef` coefficients into the rows of `coef`, then INDEX:VALUE nodes appended to `nodes`, each
// vector ended by index -1. The lines are counted first, so that an absurd total_sv is refused
// before anything is allocated; the vectors then grow with what each line holds. Returns where
// each vector starts in `nodes`.
std::vector<std::size_t> read_support_vectors(std::string_view rest, int total_sv, int n_coef, const Parser& p,
                                              std::vector<std::vector<double>>& coef, std::vector<svm_node>& nodes) {
    const std::size_t lines = count_lines(rest, static_cast<std::size_t>(total_sv));
    if (lines < static_cast<std::size_t>(total_sv))
        throw p.fail(fmt::format("total_sv {} but the text holds {} support-vector line{}", total_sv, lines,
                                 lines == 1 ? "" : "s"));
    coef.assign(static_cast<std::size_t>(n_coef), {});
    std::vector<std::size_t> starts;
    for (int i = 0; i < total_sv; ++i) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);

        Tokens fields(line);
        for (int c = 0; c < n_coef; ++c) {
            const std::string_view tok = fields.next();
            if (tok.empty()) throw p.fail(fmt::format("support vector {} has too few coefficients", i + 1));
            coef[static_cast<std::size_t>(c)].push_back(p.to_double(tok, "SV coefficient"));
        }
        starts.push_back(nodes.size());
        for (std::string_view tok = fields.next(); !tok.empty(); tok = fields.next()) {
            const std::size_t colon = tok.find(':');
            if (colon == std::string_view::npos)
                throw p.fail(fmt::format("support vector {}: \"{}\" is not INDEX:VALUE", i + 1, tok));
            svm_node node{};
            node.index = p.to_int(tok.substr(0, colon), "SV index");
            if (node.index < 1) throw p.fail(fmt::format("support vector {}: index {} < 1", i + 1, node.index));
            node.value = p.to_double(tok.substr(colon + 1), "SV value");
            nodes.push_back(node);
        }
        nodes.push_back(svm_node{-1, 0.0});
    }
    return starts;
}

}  // namespace

// Header, checks, support vectors, then libsvm's struct pointed into the vectors.
SvmModel::SvmModel(std::string_view text, const std::string& where) {
    const Parser p(where);
    Tokens tokens(text);
    svm_parameter& param = model_.param;
    const HeaderArrays arrays{rho_, prob_a_, prob_b_, label_, n_sv_};
    const Header h = read_header(tokens, p, param, arrays);
    check_header(h, arrays, p);
    const std::vector<std::size_t> starts =
        read_support_vectors(tokens.rest_after_line(), *h.total_sv, *h.nr_class - 1, p, coef_, nodes_);

    // Point libsvm's struct into the vectors, which no longer change.
    for (std::size_t s : starts) sv_.push_back(nodes_.data() + s);
    for (auto& row : coef_) coef_rows_.push_back(row.data());
    param.svm_type = *h.svm_type;
    param.kernel_type = *h.kernel_type;
    model_.nr_class = *h.nr_class;
    model_.l = *h.total_sv;
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

namespace {

// libsvm 3.24's Kernel::k_function for the RBF kernel: exp(-gamma |x - y|^2), the squared
// distance summed in one pass over both sparse vectors in index order (a missing index counts
// as 0), each square rounded, then added, as Debian's build of libsvm computes it (no fused
// multiply-add: checked in its disassembly).
double rbf_kernel(const svm_node* x, const svm_node* y, double gamma) {
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            const double d = x->value - y->value;
            sum += d * d;
            ++x;
            ++y;
        } else if (x->index > y->index) {
            sum += y->value * y->value;
            ++y;
        } else {
            sum += x->value * x->value;
            ++x;
        }
    }
    for (; x->index != -1; ++x) sum += x->value * x->value;
    for (; y->index != -1; ++y) sum += y->value * y->value;
    return libm::exp(-gamma * sum);
}

}  // namespace

bool SvmModel::own_prediction() const {
    const int type = model_.param.svm_type;
    return model_.param.kernel_type == RBF && (type == EPSILON_SVR || type == NU_SVR || type == ONE_CLASS);
}

double SvmModel::predict(std::span<const svm_node> x) const {
    if (x.empty() || x.back().index != -1) throw Error("internal: svm input vector not ended by index -1");
    if (!own_prediction()) return svm_predict(&model_, x.data());
    // libsvm 3.24's svm_predict_values for the one-row models: sum of coef_i K(x, sv_i) in the
    // support vectors' order, each product rounded, minus rho.
    const double* coef = model_.sv_coef[0];
    double sum = 0;
    for (int i = 0; i < model_.l; ++i) sum += coef[i] * rbf_kernel(x.data(), model_.SV[i], model_.param.gamma);
    sum -= model_.rho[0];
    if (model_.param.svm_type == ONE_CLASS) return sum > 0 ? 1 : -1;
    return sum;
}

double SvmModel::libsvm_predict(std::span<const svm_node> x) const {
    if (x.empty() || x.back().index != -1) throw Error("internal: svm input vector not ended by index -1");
    return svm_predict(&model_, x.data());
}

}  // namespace vmafx
