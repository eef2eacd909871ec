// The start-up probe of a Vulkan device's float arithmetic (float_probe.cpp says what it checks
// and why): one invocation applies kOps's operations to the inputs and writes the results.
// Every operation is the CPU's correctly rounded one, so the results must be the CPU's bits.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 1) in;

layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Doubles { double v[]; };

// float_probe.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t floats_in, floats_out, doubles_in, doubles_out;
} pc;

void main() {
    Floats fi = Floats(pc.floats_in), fo = Floats(pc.floats_out);
    Doubles di = Doubles(pc.doubles_in), dout = Doubles(pc.doubles_out);
    // Inputs: x normal small, h 0.5, s subnormal, t 1.5, u large.
    const float x = fi.v[0], h = fi.v[1], s = fi.v[2], t = fi.v[3], u = fi.v[4];
    fo.v[0] = x * h;             // a subnormal product of normal operands
    fo.v[1] = s * t;             // subnormal operand and result (a tie on the subnormal grid)
    fo.v[2] = s + s;             // subnormal sum
    fo.v[3] = x - s;             // normal less subnormal
    fo.v[4] = s * u;             // subnormal operand, normal result
    fo.v[5] = float(di.v[5]);    // a double narrowed to a subnormal float
    fo.v[6] = x * h - x * h * h; // subnormal difference
    const double dx = di.v[0], dh = di.v[1], ds = di.v[2], dt = di.v[3], du = di.v[4];
    dout.v[0] = dx * dh;
    dout.v[1] = ds * dt;
    dout.v[2] = ds + ds;
    dout.v[3] = dx - ds;
    dout.v[4] = ds * du;
    dout.v[5] = double(s);       // a subnormal float widened
    dout.v[6] = dx * dh - dx * dh * dh;
}
