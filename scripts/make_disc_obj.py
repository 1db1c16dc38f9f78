#!/usr/bin/env python3
"""Writes scenes/meshes/disc.obj: a round tablecloth for scenes/tablecloth.json.

A disc of radius R in the x-z plane (y = 0), triangulated in rings: a centre vertex and ring k
(k = 1 .. K) of 6k vertices at radius k R / K, so 1 + 3 K (K + 1) vertices and 6 K^2 triangles
of about equal size (no grid: each vertex has 6 neighbours, the rings' own seams where
triangles turn). Every triangle is wound counter-clockwise seen from +y, so the cloth's front
faces up. Usage: scripts/make_disc_obj.py [--rings K] [--radius R] [OUT]
"""
import argparse
import math


def ring(k, radius, rings):
    """The vertices of ring k as (x, z); ring 0 is the centre."""
    if k == 0:
        return [(0.0, 0.0)]
    r = radius * k / rings
    return [(r * math.cos(2 * math.pi * i / (6 * k)), r * math.sin(2 * math.pi * i / (6 * k)))
            for i in range(6 * k)]


def disc(rings, radius):
    vertices, first = [], []
    for k in range(rings + 1):
        first.append(len(vertices))
        vertices += ring(k, radius, rings)
    triangles = []
    # Between ring k-1 (6(k-1) vertices) and ring k (6k): in each of the 6 sectors ring k has
    # k + 1 vertices (the last shared with the next sector) and ring k-1 has k. The angle grows
    # from +x towards +z, clockwise seen from +y (x cross z = -y), so each triangle takes its
    # corners against it.
    for k in range(1, rings + 1):
        inner = lambda i: first[k - 1] + (i % (6 * (k - 1)) if k > 1 else 0)
        outer = lambda i: first[k] + i % (6 * k)
        for s in range(6):
            for j in range(k):
                o, n = s * k + j, s * (k - 1) + j
                triangles.append((outer(o), inner(n), outer(o + 1)))
                if j < k - 1:
                    triangles.append((inner(n), inner(n + 1), outer(o + 1)))
    return vertices, triangles


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rings", type=int, default=10)
    p.add_argument("--radius", type=float, default=0.8)
    p.add_argument("out", nargs="?", default="scenes/meshes/disc.obj")
    a = p.parse_args()
    vertices, triangles = disc(a.rings, a.radius)
    with open(a.out, "w") as f:
        f.write(f"# A disc of radius {a.radius:g} m in {a.rings} rings: {len(vertices)} vertices, "
                f"{len(triangles)} triangles (scripts/make_disc_obj.py)\n")
        for x, z in vertices:
            f.write(f"v {x:.6f} 0 {z:.6f}\n")
        for t in triangles:
            f.write("f {} {} {}\n".format(*(i + 1 for i in t)))


if __name__ == "__main__":
    main()
