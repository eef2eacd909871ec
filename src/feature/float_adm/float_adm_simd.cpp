// SIMD decouple row of float_adm (float_adm_kernels.hpp; Google Highway, one source for every
// target, the best one the CPU supports picked at run time): the same floats as decouple_pixel,
// one column per lane. The reciprocal estimate is the software rcpss of rcp_estimate.hpp done
// on lanes (its table gathered, the ends selected by masks); every product and sum is the
// reference's, in its order (nothing fused: the build has -ffp-contract=off).
//
// The gain limit: the reference multiplies the float by the double limit and compares in
// double. Where the limit is itself a float, that product of two floats is exact in double, so
// rounding it to float once is the float product, and min/max of a value and its rounding
// against a float pick the same float: the lanes then work in float. Another limit (not a float)
// runs the reference a sample at a time. The columns past the last whole vector run
// decouple_pixel. tests/test_simd_kernels.cpp runs every compiled target against the reference.
#include <cstdint>

#include "feature/float_adm/float_adm_kernels.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "feature/float_adm/float_adm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace vmafx::float_adm::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

/// rcp_estimate on lanes.
HWY_INLINE VF estimate(DF df, VF x, const std::int32_t* table) {
    const DI di;
    const VI bits = hn::BitCast(di, x);
    const VI sign = hn::And(bits, hn::Set(di, static_cast<std::int32_t>(0x80000000u)));
    const VI e = hn::And(hn::ShiftRight<23>(bits), hn::Set(di, 0xff));
    const VI index = hn::And(hn::ShiftRight<11>(bits), hn::Set(di, 0xfff));
    const VI significand = hn::GatherIndex(di, table, index);
    VI out = hn::Or(hn::Or(sign, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 253), e))), significand);
    out = hn::IfThenElse(hn::Eq(e, hn::Zero(di)), hn::Or(sign, hn::Set(di, 0x7f800000)), out);
    out = hn::IfThenElse(hn::Gt(e, hn::Set(di, 252)), sign, out);
    const auto nan = hn::And(hn::Eq(e, hn::Set(di, 0xff)),
                             hn::Ne(hn::And(bits, hn::Set(di, 0x7fffff)), hn::Zero(di)));
    out = hn::IfThenElse(nan, hn::Or(bits, hn::Set(di, 0x00400000)), out);
    return hn::BitCast(df, out);
}

/// clamp(n / d, 0, 1) as the reference: n * (rcpss(d) refined), then k < 0 ? 0 : (k > 1 ? 1 : k).
HWY_INLINE VF ratio01(DF df, VF n, VF d, const std::int32_t* table) {
    const VF xi = estimate(df, d, table);
    const VF rcp = hn::Add(xi, hn::Mul(xi, hn::Sub(hn::Set(df, 1.0f), hn::Mul(d, xi))));
    const VF k = hn::Mul(n, rcp);
    const VF zero = hn::Zero(df);
    const VF one = hn::Set(df, 1.0f);
    return hn::IfThenElse(hn::Lt(k, zero), zero, hn::IfThenElse(hn::Gt(k, one), one, k));
}

/// The reference's limit (rst > 0: min(rst * g, t); then, rst < 0: max(rst * g, t)) with a float g.
HWY_INLINE VF limit(DF df, VF rst, VF t, VF g) {
    const VF zero = hn::Zero(df);
    const VF x = hn::Mul(rst, g);
    const VF r1 = hn::IfThenElse(hn::Gt(rst, zero), hn::IfThenElse(hn::Lt(x, t), x, t), rst);
    const VF x1 = hn::Mul(r1, g);
    return hn::IfThenElse(hn::Lt(r1, zero), hn::IfThenElse(hn::Gt(x1, t), x1, t), r1);
}

}  // namespace

void Decouple(const DecoupleRow& r, int n, double gain_limit) {
    const float g = static_cast<float>(gain_limit);
    int j = 0;
    if (static_cast<double>(g) == gain_limit) {
        const DF df;
        const int lanes = static_cast<int>(hn::Lanes(df));
        const std::int32_t* table = rcp_table_shifted();
        const VF eps = hn::Set(df, 1e-30f);
        const VF vg = hn::Set(df, g);
        const VF zero = hn::Zero(df);
        const VF cos_1deg_sq = hn::Set(df, static_cast<float>(std::cos(1.0 * 3.14159265358979323846 / 180.0) *
                                                              std::cos(1.0 * 3.14159265358979323846 / 180.0)));
        for (; j + lanes <= n; j += lanes) {
            const VF oh = hn::LoadU(df, r.oh + j), ov = hn::LoadU(df, r.ov + j), od = hn::LoadU(df, r.od + j);
            const VF th = hn::LoadU(df, r.th + j), tv = hn::LoadU(df, r.tv + j), td = hn::LoadU(df, r.td + j);
            VF rh = hn::Mul(ratio01(df, th, hn::Add(oh, eps), table), oh);
            VF rv = hn::Mul(ratio01(df, tv, hn::Add(ov, eps), table), ov);
            VF rd = hn::Mul(ratio01(df, td, hn::Add(od, eps), table), od);
            const VF ot_dp = hn::Add(hn::Mul(oh, th), hn::Mul(ov, tv));
            const VF o_mag_sq = hn::Add(hn::Mul(oh, oh), hn::Mul(ov, ov));
            const VF t_mag_sq = hn::Add(hn::Mul(th, th), hn::Mul(tv, tv));
            const auto flag = hn::And(hn::Ge(ot_dp, zero),
                                      hn::Ge(hn::Mul(ot_dp, ot_dp), hn::Mul(hn::Mul(cos_1deg_sq, o_mag_sq), t_mag_sq)));
            if (!hn::AllFalse(df, flag)) {
                rh = hn::IfThenElse(flag, limit(df, rh, th, vg), rh);
                rv = hn::IfThenElse(flag, limit(df, rv, tv, vg), rv);
                rd = hn::IfThenElse(flag, limit(df, rd, td, vg), rd);
            }
            hn::StoreU(rh, df, r.rh + j);
            hn::StoreU(rv, df, r.rv + j);
            hn::StoreU(rd, df, r.rd + j);
            hn::StoreU(hn::Sub(th, rh), df, r.ah + j);
            hn::StoreU(hn::Sub(tv, rv), df, r.av + j);
            hn::StoreU(hn::Sub(td, rd), df, r.ad + j);
        }
    }
    for (; j < n; ++j) decouple_pixel(r, j, gain_limit);
}

std::int64_t Target() { return HWY_TARGET; }

}  // namespace vmafx::float_adm::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmafx::float_adm {

HWY_EXPORT(Decouple);
HWY_EXPORT(Target);

namespace {
void decouple_simd(const DecoupleRow& r, int n, double gain_limit) {
    HWY_DYNAMIC_DISPATCH(Decouple)(r, n, gain_limit);
}
}  // namespace

DecoupleRowFn simd_decouple_row() { return decouple_simd; }

std::int64_t simd_target() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace vmafx::float_adm
#endif  // HWY_ONCE
