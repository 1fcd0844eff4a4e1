typedef struct { int id; __global int *data; } Node;
__attribute__((noinline)) int walk(Node n, int steps) { int acc = 0; for (int i = 0; i < steps; ++i) acc += n.data[i]; return acc + n.id; }
__kernel void mid_kernel(__global int *out, __global int *data) { Node n = {3, data}; out[0] = walk(n, 5); }
