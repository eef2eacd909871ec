// iqa_vulkan.hpp: the float_ssim and float_ms_ssim Vulkan twins' passes.
#include "feature/common/iqa_vulkan.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "feature/common/float_image_math.hpp"

namespace vmafx::iqa {

namespace {

const std::uint32_t kSpirv[] = {
#include "iqa_vulkan.spv.inc"
};

constexpr int kGroup = 256;  // the shader's local_size_x

/// iqa_vulkan.comp's push constants, member for member.
struct Push {
    std::uint64_t a, b, dst, dst2, taps;
    float scaler;
    std::uint32_t ref_pitch, dis_pitch;
    std::int32_t w, h, out_w, factor, klen, plane, pitch, first_row, row_count, wide, plant_shift, toward_zero, pass;
};
static_assert(sizeof(Push) == 104);

std::uint32_t groups(int n) { return static_cast<std::uint32_t>((n + kGroup - 1) / kGroup); }

}  // namespace

VulkanSsimPipeline::VulkanSsimPipeline(const char* name, const VideoFormat& format, TwinPlan plan, unsigned slots,
                                       PlantedDefect plant)
    : name_(name), format_(format), plan_(std::move(plan)), plant_(Plant::of(plant)),
      layout_(format.width, format.height, plan_), kernel_(kSpirv, sizeof(Push), name), frames_(name, slots) {
    if (plan_.klen > 0) {
        taps_ = vulkan::DeviceBuffer<float>(plan_.taps.size());
        vulkan::upload(taps_.at(0), plan_.taps.data(), plan_.taps.size() * sizeof(float), "uploading the decimation taps");
    }
    const std::size_t sums = plan_.scored.size() * kTermRows;
    const std::vector<double> zeros(sums, 0.0);
    for (unsigned s = 0; s < slots; ++s) {
        Slot slot;
        slot.ref = vulkan::DeviceBuffer<float>(layout_.pyramid);
        slot.cmp = vulkan::DeviceBuffer<float>(layout_.pyramid);
        slot.cache = vulkan::DeviceBuffer<float>(kMaps * layout_.cache_plane);
        slot.rows = vulkan::DeviceBuffer<double>(static_cast<std::size_t>(plan_.row_count) * layout_.pitch);
        slot.sums = vulkan::DeviceBuffer<double>(sums);
        // Rows the plan does not form stay 0 (sums() reads whole TermSums).
        vulkan::upload(slot.sums.at(0), zeros.data(), sums * sizeof(double), "zeroing the SSIM sums");
        slot.host_sums.assign(sums, 0.0);
        slot.seq = std::make_unique<vulkan::SequentialSum<double>>(layout_.max_windows, kTermRows);
        slots_.push_back(std::move(slot));
    }
}

void VulkanSsimPipeline::enqueue(const GpuFrame& f, unsigned slot, GpuQueue* queue) {
    frames_.enqueued(slot, f.index);
    const DevicePlane& ref = f.ref.luma();
    const DevicePlane& dist = f.dist.luma();
    if (!ref.data || !dist.data) throw Error(std::string(name_) + ": frame " + std::to_string(f.index) + " has no luma");
    const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(format_.width) * format_.bytes_per_sample();
    if (ref.pitch < row_bytes || dist.pitch < row_bytes)
        throw Error(std::string(name_) + ": a luma pitch is shorter than a row");
    Slot& s = slots_[slot];
    Push p{};
    p.plant_shift = plant_.mirror_shift;
    p.toward_zero = plant_.toward_zero ? 1 : 0;

    p.pass = 0;
    p.a = vulkan::address(ref.data);
    p.b = vulkan::address(dist.data);
    p.dst = s.ref.address();
    p.dst2 = s.cmp.address();
    p.scaler = floatimg::picture_copy_scaler(format_.bit_depth);
    p.ref_pitch = static_cast<std::uint32_t>(ref.pitch);
    p.dis_pitch = static_cast<std::uint32_t>(dist.pitch);
    p.w = format_.width;
    p.h = format_.height;
    p.wide = format_.bit_depth > 8;
    kernel_.dispatch(queue, groups(p.w), static_cast<std::uint32_t>(p.h), 1, &p);

    p.pass = 1;
    p.taps = taps_.size() ? taps_.address() : 0;
    p.factor = plan_.factor;
    p.klen = plan_.klen;
    for (int k = 1; k < plan_.levels; ++k) {
        const auto [pw, ph] = layout_.size[k - 1];
        const auto [sw, sh] = layout_.size[k];
        p.w = pw;
        p.h = ph;
        p.out_w = sw;
        for (const vulkan::DeviceBuffer<float>* picture : {&s.ref, &s.cmp}) {
            p.a = picture->address(layout_.offset[k - 1]);
            p.dst = picture->address(layout_.offset[k]);
            kernel_.dispatch(queue, groups(sw), static_cast<std::uint32_t>(sh), 1, &p);
        }
    }

    for (std::size_t j = 0; j < plan_.scored.size(); ++j) {
        const int k = plan_.scored[j];
        const auto [lw, lh] = layout_.size[k];
        const int dw = lw - kGaussianLen + 1, dh = lh - kGaussianLen + 1;
        p.pass = 2;
        p.a = s.ref.address(layout_.offset[k]);
        p.b = s.cmp.address(layout_.offset[k]);
        p.dst = s.cache.address();
        p.w = lw;
        p.plane = static_cast<std::int32_t>(layout_.cache_plane);
        kernel_.dispatch(queue, groups(dw), static_cast<std::uint32_t>(lh), 1, &p);
        p.pass = 3;
        p.a = s.cache.address();
        p.dst = s.rows.address();
        p.w = dw;
        p.pitch = static_cast<std::int32_t>(layout_.pitch);
        p.first_row = plan_.first_row;
        p.row_count = plan_.row_count;
        kernel_.dispatch(queue, groups(dw), static_cast<std::uint32_t>(dh), 1, &p);
        const std::size_t windows = static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh);
        s.seq->enqueue(queue, s.rows.address(), windows, layout_.pitch, static_cast<unsigned>(plan_.row_count),
                       s.sums.address(j * kTermRows + static_cast<std::size_t>(plan_.first_row)));
    }
    vulkan::copy_to_host(queue, s.host_sums.data(), s.sums.at(0), s.host_sums.size() * sizeof(double),
                         "copying the SSIM sums");
}

TermSums VulkanSsimPipeline::sums(unsigned slot, unsigned index, std::size_t j) const {
    frames_.check_holds(slot, index);
    TermSums out{};
    for (int r = 0; r < kTermRows; ++r) out[static_cast<std::size_t>(r)] = slots_[slot].host_sums[j * kTermRows + r];
    return out;
}

}  // namespace vmafx::iqa
