#include "cuda/device.hpp"
#include "cuda/probe.hpp"
#include "cuda/warp_sum.cuh"

namespace vmafx::cuda {

namespace {

// Written as plain expressions on purpose: with --fmad=false the multiply and the add round
// separately, and / and sqrt round correctly (-prec-div, -prec-sqrt), as on the host.
__global__ void probe_float(const float* a, const float* b, const float* c, float* mul_add, float* quotient,
                            float* root, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    mul_add[i] = a[i] * b[i] + c[i];
    quotient[i] = a[i] / b[i];
    root[i] = sqrtf(a[i]);
}

__global__ void probe_double(const double* a, const double* b, const double* c, double* mul_add, double* quotient,
                             double* root, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    mul_add[i] = a[i] * b[i] + c[i];
    quotient[i] = a[i] / b[i];
    root[i] = sqrt(a[i]);
}

__global__ void probe_warp_sum(const unsigned long long* values, unsigned long long* sums) {
    const unsigned long long s = gpu::warp_sum_u64(values[blockIdx.x * 32 + threadIdx.x]);
    if (threadIdx.x == 31) sums[blockIdx.x] = s;  // every lane holds the sum: read the last one's
}

template <typename T>
std::vector<T> download(const DeviceBuffer<T>& d) {
    std::vector<T> h(d.size());
    check(cudaMemcpy(h.data(), d.get(), d.size() * sizeof(T), cudaMemcpyDeviceToHost), "probe download");
    return h;
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h) {
    DeviceBuffer<T> d(h.size());
    check(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "probe upload");
    return d;
}

}  // namespace

ProbeResults probe_arithmetic(const std::vector<float>& af, const std::vector<float>& bf, const std::vector<float>& cf,
                              const std::vector<double>& ad, const std::vector<double>& bd,
                              const std::vector<double>& cd) {
    const int nf = static_cast<int>(af.size()), nd = static_cast<int>(ad.size());
    auto a = upload(af), b = upload(bf), c = upload(cf);
    DeviceBuffer<float> m(af.size()), q(af.size()), r(af.size());
    if (nf) probe_float<<<blocks_for(nf, 256), 256>>>(a.get(), b.get(), c.get(), m.get(), q.get(), r.get(), nf);
    check_launch("probe_float");
    auto x = upload(ad), y = upload(bd), z = upload(cd);
    DeviceBuffer<double> md(ad.size()), qd(ad.size()), rd(ad.size());
    if (nd) probe_double<<<blocks_for(nd, 256), 256>>>(x.get(), y.get(), z.get(), md.get(), qd.get(), rd.get(), nd);
    check_launch("probe_double");
    check(cudaDeviceSynchronize(), "probe");
    return {download(m), download(q), download(r), download(md), download(qd), download(rd)};
}

std::vector<unsigned long long> probe_warp_sums(const std::vector<unsigned long long>& values) {
    if (values.size() % 32 != 0) throw Error("probe_warp_sums: the values are not whole warps");
    const std::size_t groups = values.size() / 32;
    auto v = upload(values);
    DeviceBuffer<unsigned long long> sums(groups);
    if (groups) probe_warp_sum<<<static_cast<unsigned>(groups), 32>>>(v.get(), sums.get());
    check_launch("probe_warp_sum");
    check(cudaDeviceSynchronize(), "probe");
    return download(sums);
}

}  // namespace vmafx::cuda
