/*
 * score.c: scores a distorted y4m video against its reference with the libvmaf C API and prints
 * each frame's VMAF and the pooled mean. Builds against any libvmaf 3.x (vmafx's or upstream's):
 *
 *     cc score.c $(pkg-config --cflags --libs libvmaf) -o score
 *     ./score ref.y4m dist.y4m [model_version] [n_threads]
 *
 * Both files must be y4m (4:2:0, 4:2:2 or 4:4:4, 8 to 16 bits, C tags such as 420p10) of the
 * same size. Exit status: 0 scored, 1 an error (the message says which).
 */
#include <libvmaf.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One y4m file: its geometry and the stream positioned at the next FRAME header. */
typedef struct {
    FILE *f;
    unsigned w, h, bpc;
    enum VmafPixelFormat fmt;
} Y4m;

/* Reads the stream header: W, H and the C (colour space) tag; 0 or -1 with a message. */
static int y4m_open(Y4m *y, const char *path) {
    char line[1024];
    memset(y, 0, sizeof(*y));
    y->f = fopen(path, "rb");
    if (!y->f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    if (!fgets(line, sizeof(line), y->f) || strncmp(line, "YUV4MPEG2 ", 10) != 0) {
        fprintf(stderr, "%s: not a y4m file\n", path);
        return -1;
    }
    y->fmt = VMAF_PIX_FMT_YUV420P;
    y->bpc = 8;
    for (char *tok = strtok(line + 10, " \n"); tok; tok = strtok(NULL, " \n")) {
        if (tok[0] == 'W') y->w = (unsigned)strtoul(tok + 1, NULL, 10);
        if (tok[0] == 'H') y->h = (unsigned)strtoul(tok + 1, NULL, 10);
        if (tok[0] == 'C') {
            const char *c = tok + 1;
            if (!strncmp(c, "420", 3)) y->fmt = VMAF_PIX_FMT_YUV420P;
            else if (!strncmp(c, "422", 3)) y->fmt = VMAF_PIX_FMT_YUV422P;
            else if (!strncmp(c, "444", 3)) y->fmt = VMAF_PIX_FMT_YUV444P;
            else if (!strncmp(c, "mono", 4)) y->fmt = VMAF_PIX_FMT_YUV400P;
            else {
                fprintf(stderr, "%s: colour space %s not handled\n", path, c);
                return -1;
            }
            const char *p = strchr(c, 'p');
            if (p && p[1] >= '0' && p[1] <= '9') y->bpc = (unsigned)strtoul(p + 1, NULL, 10);
        }
    }
    if (!y->w || !y->h) {
        fprintf(stderr, "%s: no W or H in the header\n", path);
        return -1;
    }
    return 0;
}

/* Reads the next frame into a new picture: 1 read, 0 end of file, -1 error. */
static int y4m_read(Y4m *y, VmafPicture *pic) {
    char line[256];
    if (!fgets(line, sizeof(line), y->f)) return 0;
    if (strncmp(line, "FRAME", 5) != 0) {
        fprintf(stderr, "bad frame header\n");
        return -1;
    }
    if (vmaf_picture_alloc(pic, y->fmt, y->bpc, y->w, y->h)) {
        fprintf(stderr, "vmaf_picture_alloc failed\n");
        return -1;
    }
    const size_t bytes = y->bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        for (unsigned row = 0; row < pic->h[p]; row++) {
            unsigned char *dst = (unsigned char *)pic->data[p] + row * pic->stride[p];
            if (fread(dst, bytes, pic->w[p], y->f) != pic->w[p]) {
                fprintf(stderr, "frame cut short\n");
                vmaf_picture_unref(pic);
                return -1;
            }
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s ref.y4m dist.y4m [model_version] [n_threads]\n", argv[0]);
        return 1;
    }
    const char *version = argc > 3 ? argv[3] : "vmaf_v0.6.1";
    Y4m ref, dist;
    if (y4m_open(&ref, argv[1]) || y4m_open(&dist, argv[2])) return 1;
    if (ref.w != dist.w || ref.h != dist.h || ref.fmt != dist.fmt || ref.bpc != dist.bpc) {
        fprintf(stderr, "the two videos differ in size or format\n");
        return 1;
    }

    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR,
                             .n_threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0};
    VmafContext *vmaf = NULL;
    VmafModel *model = NULL;
    VmafModelConfig model_cfg = {.name = "vmaf", .flags = VMAF_MODEL_FLAGS_DEFAULT};
    if (vmaf_init(&vmaf, cfg) || vmaf_model_load(&model, &model_cfg, version) ||
        vmaf_use_features_from_model(vmaf, model)) {
        fprintf(stderr, "could not set up libvmaf with model %s\n", version);
        return 1;
    }

    unsigned frames = 0;
    int status = 0;
    for (;;) {
        VmafPicture r, d;
        const int got_r = y4m_read(&ref, &r);
        const int got_d = got_r == 1 ? y4m_read(&dist, &d) : 0;
        if (got_r == 1 && got_d != 1) vmaf_picture_unref(&r);
        if (got_r < 0 || got_d < 0) { status = 1; break; }
        if (got_r == 0 || got_d == 0) break;
        if (vmaf_read_pictures(vmaf, &r, &d, frames)) {
            fprintf(stderr, "vmaf_read_pictures failed at frame %u\n", frames);
            status = 1;
            break;
        }
        frames++;
    }
    if (!status && frames == 0) {
        fprintf(stderr, "no frames\n");
        status = 1;
    }
    if (!status && vmaf_read_pictures(vmaf, NULL, NULL, 0)) {
        fprintf(stderr, "flush failed\n");
        status = 1;
    }
    for (unsigned i = 0; !status && i < frames; i++) {
        double s;
        if (vmaf_score_at_index(vmaf, model, &s, i)) { status = 1; break; }
        printf("frame %u vmaf %.6f\n", i, s);
    }
    double pooled = 0.0;
    if (!status && vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &pooled, 0, frames - 1) == 0)
        printf("pooled vmaf mean %.17g (%s, libvmaf %s)\n", pooled, version, vmaf_version());
    else
        status = 1;

    vmaf_model_destroy(model);
    vmaf_close(vmaf);
    fclose(ref.f);
    fclose(dist.f);
    return status;
}
