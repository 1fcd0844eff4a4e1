typedef struct { short x; short y; } Small;
__kernel void small_kernel(__global Small *s) { Small v = s[0]; v.x += v.y; s[1] = v; }
