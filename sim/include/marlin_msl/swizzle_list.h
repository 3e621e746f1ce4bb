// Swizzle member lists of metal::vec (generated: all 2-component swizzles, and 3- and
// 4-component swizzles without repeated components, in xyzw and rgba spelling).
#pragma once
#pragma GCC system_header

#define MARLIN_SWIZZLES_2(T, S) \
  swizzle<T, S, 0, 0> xx;       \
  swizzle<T, S, 0, 1> xy;       \
  swizzle<T, S, 1, 0> yx;       \
  swizzle<T, S, 1, 1> yy;       \
  swizzle<T, S, 0, 0> rr;       \
  swizzle<T, S, 0, 1> rg;       \
  swizzle<T, S, 1, 0> gr;       \
  swizzle<T, S, 1, 1> gg;

#define MARLIN_SWIZZLES_3(T, S) \
  swizzle<T, S, 0, 0> xx;       \
  swizzle<T, S, 0, 1> xy;       \
  swizzle<T, S, 0, 2> xz;       \
  swizzle<T, S, 1, 0> yx;       \
  swizzle<T, S, 1, 1> yy;       \
  swizzle<T, S, 1, 2> yz;       \
  swizzle<T, S, 2, 0> zx;       \
  swizzle<T, S, 2, 1> zy;       \
  swizzle<T, S, 2, 2> zz;       \
  swizzle<T, S, 0, 1, 2> xyz;   \
  swizzle<T, S, 0, 2, 1> xzy;   \
  swizzle<T, S, 1, 0, 2> yxz;   \
  swizzle<T, S, 1, 2, 0> yzx;   \
  swizzle<T, S, 2, 0, 1> zxy;   \
  swizzle<T, S, 2, 1, 0> zyx;   \
  swizzle<T, S, 0, 0> rr;       \
  swizzle<T, S, 0, 1> rg;       \
  swizzle<T, S, 0, 2> rb;       \
  swizzle<T, S, 1, 0> gr;       \
  swizzle<T, S, 1, 1> gg;       \
  swizzle<T, S, 1, 2> gb;       \
  swizzle<T, S, 2, 0> br;       \
  swizzle<T, S, 2, 1> bg;       \
  swizzle<T, S, 2, 2> bb;       \
  swizzle<T, S, 0, 1, 2> rgb;   \
  swizzle<T, S, 0, 2, 1> rbg;   \
  swizzle<T, S, 1, 0, 2> grb;   \
  swizzle<T, S, 1, 2, 0> gbr;   \
  swizzle<T, S, 2, 0, 1> brg;   \
  swizzle<T, S, 2, 1, 0> bgr;

#define MARLIN_SWIZZLES_4(T, S)   \
  swizzle<T, S, 0, 0> xx;         \
  swizzle<T, S, 0, 1> xy;         \
  swizzle<T, S, 0, 2> xz;         \
  swizzle<T, S, 0, 3> xw;         \
  swizzle<T, S, 1, 0> yx;         \
  swizzle<T, S, 1, 1> yy;         \
  swizzle<T, S, 1, 2> yz;         \
  swizzle<T, S, 1, 3> yw;         \
  swizzle<T, S, 2, 0> zx;         \
  swizzle<T, S, 2, 1> zy;         \
  swizzle<T, S, 2, 2> zz;         \
  swizzle<T, S, 2, 3> zw;         \
  swizzle<T, S, 3, 0> wx;         \
  swizzle<T, S, 3, 1> wy;         \
  swizzle<T, S, 3, 2> wz;         \
  swizzle<T, S, 3, 3> ww;         \
  swizzle<T, S, 0, 1, 2> xyz;     \
  swizzle<T, S, 0, 1, 3> xyw;     \
  swizzle<T, S, 0, 2, 1> xzy;     \
  swizzle<T, S, 0, 2, 3> xzw;     \
  swizzle<T, S, 0, 3, 1> xwy;     \
  swizzle<T, S, 0, 3, 2> xwz;     \
  swizzle<T, S, 1, 0, 2> yxz;     \
  swizzle<T, S, 1, 0, 3> yxw;     \
  swizzle<T, S, 1, 2, 0> yzx;     \
  swizzle<T, S, 1, 2, 3> yzw;     \
  swizzle<T, S, 1, 3, 0> ywx;     \
  swizzle<T, S, 1, 3, 2> ywz;     \
  swizzle<T, S, 2, 0, 1> zxy;     \
  swizzle<T, S, 2, 0, 3> zxw;     \
  swizzle<T, S, 2, 1, 0> zyx;     \
  swizzle<T, S, 2, 1, 3> zyw;     \
  swizzle<T, S, 2, 3, 0> zwx;     \
  swizzle<T, S, 2, 3, 1> zwy;     \
  swizzle<T, S, 3, 0, 1> wxy;     \
  swizzle<T, S, 3, 0, 2> wxz;     \
  swizzle<T, S, 3, 1, 0> wyx;     \
  swizzle<T, S, 3, 1, 2> wyz;     \
  swizzle<T, S, 3, 2, 0> wzx;     \
  swizzle<T, S, 3, 2, 1> wzy;     \
  swizzle<T, S, 0, 1, 2, 3> xyzw; \
  swizzle<T, S, 0, 1, 3, 2> xywz; \
  swizzle<T, S, 0, 2, 1, 3> xzyw; \
  swizzle<T, S, 0, 2, 3, 1> xzwy; \
  swizzle<T, S, 0, 3, 1, 2> xwyz; \
  swizzle<T, S, 0, 3, 2, 1> xwzy; \
  swizzle<T, S, 1, 0, 2, 3> yxzw; \
  swizzle<T, S, 1, 0, 3, 2> yxwz; \
  swizzle<T, S, 1, 2, 0, 3> yzxw; \
  swizzle<T, S, 1, 2, 3, 0> yzwx; \
  swizzle<T, S, 1, 3, 0, 2> ywxz; \
  swizzle<T, S, 1, 3, 2, 0> ywzx; \
  swizzle<T, S, 2, 0, 1, 3> zxyw; \
  swizzle<T, S, 2, 0, 3, 1> zxwy; \
  swizzle<T, S, 2, 1, 0, 3> zyxw; \
  swizzle<T, S, 2, 1, 3, 0> zywx; \
  swizzle<T, S, 2, 3, 0, 1> zwxy; \
  swizzle<T, S, 2, 3, 1, 0> zwyx; \
  swizzle<T, S, 3, 0, 1, 2> wxyz; \
  swizzle<T, S, 3, 0, 2, 1> wxzy; \
  swizzle<T, S, 3, 1, 0, 2> wyxz; \
  swizzle<T, S, 3, 1, 2, 0> wyzx; \
  swizzle<T, S, 3, 2, 0, 1> wzxy; \
  swizzle<T, S, 3, 2, 1, 0> wzyx; \
  swizzle<T, S, 0, 0> rr;         \
  swizzle<T, S, 0, 1> rg;         \
  swizzle<T, S, 0, 2> rb;         \
  swizzle<T, S, 0, 3> ra;         \
  swizzle<T, S, 1, 0> gr;         \
  swizzle<T, S, 1, 1> gg;         \
  swizzle<T, S, 1, 2> gb;         \
  swizzle<T, S, 1, 3> ga;         \
  swizzle<T, S, 2, 0> br;         \
  swizzle<T, S, 2, 1> bg;         \
  swizzle<T, S, 2, 2> bb;         \
  swizzle<T, S, 2, 3> ba;         \
  swizzle<T, S, 3, 0> ar;         \
  swizzle<T, S, 3, 1> ag;         \
  swizzle<T, S, 3, 2> ab;         \
  swizzle<T, S, 3, 3> aa;         \
  swizzle<T, S, 0, 1, 2> rgb;     \
  swizzle<T, S, 0, 1, 3> rga;     \
  swizzle<T, S, 0, 2, 1> rbg;     \
  swizzle<T, S, 0, 2, 3> rba;     \
  swizzle<T, S, 0, 3, 1> rag;     \
  swizzle<T, S, 0, 3, 2> rab;     \
  swizzle<T, S, 1, 0, 2> grb;     \
  swizzle<T, S, 1, 0, 3> gra;     \
  swizzle<T, S, 1, 2, 0> gbr;     \
  swizzle<T, S, 1, 2, 3> gba;     \
  swizzle<T, S, 1, 3, 0> gar;     \
  swizzle<T, S, 1, 3, 2> gab;     \
  swizzle<T, S, 2, 0, 1> brg;     \
  swizzle<T, S, 2, 0, 3> bra;     \
  swizzle<T, S, 2, 1, 0> bgr;     \
  swizzle<T, S, 2, 1, 3> bga;     \
  swizzle<T, S, 2, 3, 0> bar;     \
  swizzle<T, S, 2, 3, 1> bag;     \
  swizzle<T, S, 3, 0, 1> arg;     \
  swizzle<T, S, 3, 0, 2> arb;     \
  swizzle<T, S, 3, 1, 0> agr;     \
  swizzle<T, S, 3, 1, 2> agb;     \
  swizzle<T, S, 3, 2, 0> abr;     \
  swizzle<T, S, 3, 2, 1> abg;     \
  swizzle<T, S, 0, 1, 2, 3> rgba; \
  swizzle<T, S, 0, 1, 3, 2> rgab; \
  swizzle<T, S, 0, 2, 1, 3> rbga; \
  swizzle<T, S, 0, 2, 3, 1> rbag; \
  swizzle<T, S, 0, 3, 1, 2> ragb; \
  swizzle<T, S, 0, 3, 2, 1> rabg; \
  swizzle<T, S, 1, 0, 2, 3> grba; \
  swizzle<T, S, 1, 0, 3, 2> grab; \
  swizzle<T, S, 1, 2, 0, 3> gbra; \
  swizzle<T, S, 1, 2, 3, 0> gbar; \
  swizzle<T, S, 1, 3, 0, 2> garb; \
  swizzle<T, S, 1, 3, 2, 0> gabr; \
  swizzle<T, S, 2, 0, 1, 3> brga; \
  swizzle<T, S, 2, 0, 3, 1> brag; \
  swizzle<T, S, 2, 1, 0, 3> bgra; \
  swizzle<T, S, 2, 1, 3, 0> bgar; \
  swizzle<T, S, 2, 3, 0, 1> barg; \
  swizzle<T, S, 2, 3, 1, 0> bagr; \
  swizzle<T, S, 3, 0, 1, 2> argb; \
  swizzle<T, S, 3, 0, 2, 1> arbg; \
  swizzle<T, S, 3, 1, 0, 2> agrb; \
  swizzle<T, S, 3, 1, 2, 0> agbr; \
  swizzle<T, S, 3, 2, 0, 1> abrg; \
  swizzle<T, S, 3, 2, 1, 0> abgr;
