/* upstream_scores: scores raw planar video with an upstream libvmaf build through its public
 * API (vmaf_init with a cpumask, vmaf_use_feature, vmaf_read_pictures,
 * vmaf_feature_score_at_index) and prints each requested output of each frame with %.17g,
 * which upstream's own `vmaf` tool (it prints %.6f) cannot. Part of no vmafx build: it is how
 * the upstream values in tests/test_upstream_paths.cpp were made, and that test runs it (when
 * VMAFX_UPSTREAM_SCORES names the built program) to check them again.
 *
 * Build against an upstream libvmaf 3.2.0 build (UP = its source tree, built in UP/build):
 *   cc -O2 -o upstream_scores scripts/upstream_scores.c -IUP/include -IUP/build/include \
 *      -LUP/build/src -lvmaf -Wl,-rpath,UP/build/src -lm -lpthread
 * Usage:
 *   upstream_scores REF DIST W H BPC 420|422|444 CPUMASK FEATURE[:OPT=VAL...] OUTPUT...
 * CPUMASK is upstream's --cpumask: the bits of the instruction sets it may not use (its x86
 * cpu.h: 1 SSE2, 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512 ICL); 0 is the default
 * dispatch, 16 leaves AVX2 as the best, 255 the C code alone. Prints "FRAME OUTPUT VALUE"
 * lines, or "FRAME OUTPUT missing". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/feature.h>
#include <libvmaf/libvmaf.h>
#include <libvmaf/picture.h>

/* Reads one frame of `fmt` into a fresh picture: 0, or 1 at the end of the file, -1 on error.
 * The file holds chroma planes of ceil(w / 2) (and for 4:2:0 ceil(h / 2)) samples, as upstream's
 * vmaf tool reads raw files (tools/yuv_input.c); the picture holds vmaf_picture_alloc's floor
 * sizes, the tool's too: at odd sizes the last chroma column or row is read and not kept. */
static int read_frame(FILE *f, VmafPicture *pic, enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h) {
    if (vmaf_picture_alloc(pic, fmt, bpc, w, h)) return -1;
    const size_t bytes = bpc > 8 ? 2 : 1;
    const unsigned ssh = fmt != VMAF_PIX_FMT_YUV444P, ssv = fmt == VMAF_PIX_FMT_YUV420P;
    unsigned char *line = malloc(bytes * (w + 1));
    if (!line) {
        vmaf_picture_unref(pic);
        return -1;
    }
    for (int p = 0; p < 3; ++p) {
        const unsigned file_w = p ? (w + ssh) >> ssh : w, file_h = p ? (h + ssv) >> ssv : h;
        for (unsigned y = 0; y < file_h; ++y) {
            if (fread(line, bytes, file_w, f) != file_w) {
                free(line);
                vmaf_picture_unref(pic);
                return 1;
            }
            if (y < pic->h[p]) memcpy((unsigned char *)pic->data[p] + y * pic->stride[p], line, bytes * pic->w[p]);
        }
    }
    free(line);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 10) {
        fprintf(stderr, "usage: %s REF DIST W H BPC 420|422|444 CPUMASK FEATURE[:OPT=VAL...] OUTPUT...\n", argv[0]);
        return 2;
    }
    const unsigned w = (unsigned)atoi(argv[3]), h = (unsigned)atoi(argv[4]), bpc = (unsigned)atoi(argv[5]);
    const enum VmafPixelFormat fmt = !strcmp(argv[6], "444")   ? VMAF_PIX_FMT_YUV444P
                                     : !strcmp(argv[6], "422") ? VMAF_PIX_FMT_YUV422P
                                                               : VMAF_PIX_FMT_YUV420P;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_NONE, .n_threads = 0, .n_subsample = 1,
                             .cpumask = strtoull(argv[7], NULL, 0), .gpumask = 0};
    VmafContext *vmaf = NULL;
    if (vmaf_init(&vmaf, cfg)) return 1;
    char *feature = argv[8], *opts = strchr(feature, ':');
    VmafFeatureDictionary *dict = NULL;
    if (opts) {
        *opts++ = '\0';
        for (char *kv = strtok(opts, ":"); kv; kv = strtok(NULL, ":")) {
            char *eq = strchr(kv, '=');
            if (!eq) return 2;
            *eq = '\0';
            if (vmaf_feature_dictionary_set(&dict, kv, eq + 1)) return 1;
        }
    }
    if (vmaf_use_feature(vmaf, feature, dict)) {
        fprintf(stderr, "upstream refused feature %s\n", feature);
        return 1;
    }
    FILE *fr = fopen(argv[1], "rb"), *fd = fopen(argv[2], "rb");
    if (!fr || !fd) return 1;
    unsigned n = 0;
    for (;; ++n) {
        VmafPicture ref, dist;
        int r = read_frame(fr, &ref, fmt, bpc, w, h);
        if (r) break;
        r = read_frame(fd, &dist, fmt, bpc, w, h);
        if (r) {
            vmaf_picture_unref(&ref);
            break;
        }
        if (vmaf_read_pictures(vmaf, &ref, &dist, n)) {
            fprintf(stderr, "upstream failed frame %u\n", n);
            return 1;
        }
    }
    if (vmaf_read_pictures(vmaf, NULL, NULL, 0)) return 1;
    for (unsigned i = 0; i < n; ++i)
        for (int k = 9; k < argc; ++k) {
            double s;
            if (vmaf_feature_score_at_index(vmaf, argv[k], &s, i))
                printf("%u %s missing\n", i, argv[k]);
            else
                printf("%u %s %.17g\n", i, argv[k], s);
        }
    fclose(fr);
    fclose(fd);
    vmaf_close(vmaf);
    return 0;
}
