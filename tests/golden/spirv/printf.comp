#version 450
#extension GL_EXT_debug_printf : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 1) uniform U { uint n; } u;
void main() {
    uint i = gl_GlobalInvocationID.x;
    debugPrintfEXT("i=%u n=%d f=%f v=%v2f big=%lu\n", i, int(u.n), float(i), vec2(i, 1.0), uint64_t(i) << 33);
}
