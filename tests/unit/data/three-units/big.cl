typedef struct { int a; float b; int c[4]; } Pair;
typedef struct { Pair p; Pair q; long n; } Outer;
__attribute__((noinline)) int helper(__global Outer *o, int k) { Pair t = o->p; int s = t.a + k; for (int i = 0; i < 4; ++i) s += t.c[i]; return s + (int)o->q.b; }
__kernel void big_kernel(__global Outer *o, int k) { int r = helper(o, k); o->n = r; }
