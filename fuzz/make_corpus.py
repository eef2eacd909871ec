#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/). Run from anywhere;
the files are committed, this script says how they were made."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, '..', 'models')


def put(harness, name, data):
    d = os.path.join(HERE, 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def planes(w, h, sub, bits, seed):
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h), '444': (w, h)}[sub]
    n = w * h + 2 * cw * ch
    if bits == 8:
        return bytes((seed + 7 * i) & 0xFF for i in range(n))
    return b''.join(struct.pack('<H', (seed + 13 * i) % (1 << bits)) for i in range(n))


# --- y4m: valid headers with tiny frames, of each colour space family, and a few errors.
def y4m(header, w, h, sub, bits, frames, frame_header='FRAME\n'):
    out = ('YUV4MPEG2 ' + header + '\n').encode()
    for i in range(frames):
        out += frame_header.encode() + planes(w, h, sub, bits, 17 * i)
    return out


put('fuzz_y4m', '420jpeg_4x4_2f.y4m', y4m('W4 H4 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG', 4, 4, '420', 8, 2))
put('fuzz_y4m', '420mpeg2_odd_5x3.y4m', y4m('W5 H3 F30000:1001 C420mpeg2', 5, 3, '420', 8, 2))
put('fuzz_y4m', 'default_cs_2x2.y4m', y4m('W2 H2', 2, 2, '420', 8, 1))
put('fuzz_y4m', '422_3x2.y4m', y4m('W3 H2 C422 I?', 3, 2, '422', 8, 2))
put('fuzz_y4m', '444_2x3.y4m', y4m('W2 H3 C444', 2, 3, '444', 8, 1))
put('fuzz_y4m', '420p10_4x2.y4m', y4m('W4 H2 C420p10', 4, 2, '420', 10, 2))
put('fuzz_y4m', '422p12_2x2.y4m', y4m('H2 W2 C422p12', 2, 2, '422', 12, 1))
put('fuzz_y4m', '444p16_1x1.y4m', y4m('W1 H1 C444p16', 1, 1, '444', 16, 3))
put('fuzz_y4m', '420p9_frame_params.y4m', y4m('W2 H2 C420p9', 2, 2, '420', 9, 2, 'FRAME Ip XFOO=1\n'))
put('fuzz_y4m', 'truncated_last_frame.y4m', y4m('W4 H4 C420', 4, 4, '420', 8, 2)[:-5])
put('fuzz_y4m', 'mono_refused.y4m', y4m('W2 H2 Cmono', 2, 2, '444', 8, 1))

# --- raw: 4 bytes of format (width-1, height-1, bit depth index, subsampling), then frames.
def raw(w, h, depth_index, sub_index, frames):
    sub = ['420', '422', '444'][sub_index]
    bits = [8, 9, 10, 11, 12, 13, 14, 15, 16][depth_index]
    return bytes([w - 1, h - 1, depth_index, sub_index]) + b''.join(planes(w, h, sub, bits, 5 * i) for i in range(frames))


put('fuzz_raw', '420_4x4_8bit_2f', raw(4, 4, 0, 0, 2))
put('fuzz_raw', '420_odd_3x5_8bit', raw(3, 5, 0, 0, 1))
put('fuzz_raw', '422_4x2_10bit_2f', raw(4, 2, 2, 1, 2))
put('fuzz_raw', '444_2x2_16bit', raw(2, 2, 8, 2, 1))
put('fuzz_raw', '420_2x2_12bit_3f', raw(2, 2, 4, 0, 3))
put('fuzz_raw', 'absurd_width', bytes([0xF4, 3, 0, 0]) + bytes(24))
put('fuzz_raw', 'not_whole_frame', raw(4, 4, 0, 0, 1)[:-3])

# --- model: first byte = flags (bit 0: the rest is libsvm text; bits 1-2: enable_transform,
# disable_clip; bits 3-4: feature value), then a model file or a libsvm text.
with open(os.path.join(MODELS, 'vmaf_v0.6.1.json'), 'rb') as f:
    v061 = f.read()
put('fuzz_model', 'vmaf_v0.6.1.json', b'\x00' + v061)
doc = json.loads(v061)


def trim_svm(text, keep):
    head, sv = text.split('SV\n', 1)
    lines = [l for l in sv.split('\n') if l.strip()][:keep]
    head = '\n'.join('total_sv %d' % keep if l.startswith('total_sv') else l for l in head.split('\n'))
    return head + 'SV\n' + '\n'.join(lines) + '\n'


small = json.loads(v061)
small.pop('param_dict', None)
small['model_dict']['model'] = trim_svm(small['model_dict']['model'], 3)
put('fuzz_model', 'v061_3sv.json', b'\x00' + json.dumps(small).encode())
put('fuzz_model', 'v061_3sv_transform_noclip.json', b'\x16' + json.dumps(small).encode())

knots = json.loads(json.dumps(small))
knots['model_dict']['score_transform'] = {'enabled': True, 'knots': [[0.0, 0.0], [50.0, 60.0], [80.0, 60.0], [100.0, 100.0]],
                                          'out_lte_in': 'true'}
knots['model_dict']['feature_opts_dicts'] = [{'adm_enhn_gain_limit': 1.0}, {}, {'vif_enhn_gain_limit': 1.0}, {}, {}, {}]
put('fuzz_model', 'knots_opts.json', b'\x08' + json.dumps(knots).encode())

with open(os.path.join(MODELS, 'vmaf_b_v0.6.3.json')) as f:
    boot = json.load(f)
coll = {}
for i in range(4):
    m = boot[str(i)]
    m.pop('param_dict', None)
    m['model_dict']['model'] = trim_svm(m['model_dict']['model'], 2)
    coll[str(i)] = m
put('fuzz_model', 'bootstrap_4x2sv.json', b'\x00' + json.dumps(coll).encode())

put('fuzz_model', 'svm_nu_svr.txt', b'\x01' + trim_svm(doc['model_dict']['model'], 4).encode())
put('fuzz_model', 'svm_c_svc.txt', b'\x01' + b'svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 3\ntotal_sv 3\n'
    b'rho 0.1 0.2 0.3\nlabel 1 2 3\nnr_sv 1 1 1\nSV\n1 0.5 1:0.1 2:0.2\n-1 0.5 1:0.3 3:0.4\n-0.5 -1 2:0.9\n')
put('fuzz_model', 'svm_poly.txt', b'\x09' + b'svm_type epsilon_svr\nkernel_type polynomial\ndegree 3\ngamma 0.5\n'
    b'coef0 1\nnr_class 2\ntotal_sv 2\nrho -0.5\nprobA 0.1\nSV\n1 1:0.5 2:0.5 3:0.5\n-1 1:1\n')
put('fuzz_model', 'svm_sigmoid_linear.txt', b'\x11' + b'svm_type nu_svr\nkernel_type sigmoid\ngamma 0.1\ncoef0 0\n'
    b'nr_class 2\ntotal_sv 1\nrho 0\nSV\n2 1:1 3:2\n')

# Synthesized headers (flag bit 5): nr_class, total_sv (int32 LE), svm_type, kernel_type, array counts.
put('fuzz_model', 'synth_nu_svr.bin', b'\x21' + struct.pack('<ii', 2, 2) + bytes([4, 2, 0x01, 0x00]) + b'1 1:0.5\n-1 1:0.25\n')
put('fuzz_model', 'synth_c_svc.bin', b'\x21' + struct.pack('<ii', 3, 6) + bytes([0, 0, 0x33, 0x03]) +
    b''.join(b'1 -1 %d:0.5\n' % k for k in range(1, 7)))

# --- options: first line a -m value, every line a --feature value.
put('fuzz_options', 'v061', 'version=vmaf_v0.6.1\nvif\nadm\nmotion')
put('fuzz_options', 'neg_overloads', 'version=vmaf_v0.6.1neg:name=vmaf_neg:vif.vif_enhn_gain_limit=1.0:adm.adm_enhn_gain_limit=1\n'
    'vif=vif_enhn_gain_limit=1.0\nadm=adm_enhn_gain_limit=1.0:adm_csf_mode=3')
put('fuzz_options', 'flags', 'version=vmaf_4k_v0.6.1:disable_clip:enable_transform=true:motion.motion_force_zero=true\n'
    'motion=motion_force_zero=true:motion_blend_factor=0.5:motion_fps_weight=2\nadm=adm_ref_display_height=2160:adm_skip_scale0=true')
put('fuzz_options', 'path_spec', 'path=/nonexistent/model.json:name=x\nvif=vif_skip_scale0=true:debug=true\n'
    'adm=adm_norm_view_dist=1e1:adm_noise_weight=0.0625:adm_min_val=0.1')
put('fuzz_options', 'bad', 'version=:name=\nadm=adm_csf_mode=4\nvif=vif_enhn_gain_limit=nan\nmotion=\nnosuch=a=b')
