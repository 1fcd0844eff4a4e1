#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(set = 0, binding = 1) uniform sampler2D tex[6];
layout(location = 0) in vec2 texcoord;
layout(location = 1) flat in int tex_ind;
layout(location = 0) out vec4 uFragColor;
void main() {
    vec4 light = vec4(0.5);
    uFragColor = light * texture(tex[tex_ind], texcoord.xy);
}
