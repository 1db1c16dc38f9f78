"""examples/plot_energy.py: the matplotlib example runs the bounce scene through the module,
writes its plot and prints apexes that follow Newton's law of restitution."""
import os
import re
import sys

from PIL import Image

sys.path.insert(0, os.path.join(os.environ["VKPHYS_SCENES"], "..", "examples"))
import plot_energy  # noqa: E402  (found through the path above)


def test_bounce_apexes_follow_restitution_and_the_plot_is_drawn(tmp_path, capsys):
    out = tmp_path / "energy.png"
    plot_energy.main([os.path.join(os.environ["VKPHYS_SCENES"], "bounce.json"),
                      "--out", str(out)])
    printed = capsys.readouterr().out
    ratios = [float(r) for r in re.findall(r"(\S+) of the one before", printed)]
    # e = 0.8: each apex e^2 = 0.64 of the one before (measured 0.6425, 0.6443, 0.6471; the
    # later ones drift up as the lowest point, taken as the rest level, sinks under the floor
    # by the impact's penetration, a larger share of a smaller bounce).
    assert len(ratios) >= 3, printed
    for r in ratios[:3]:
        assert abs(r - 0.64) < 0.01, printed
    with Image.open(out) as img:
        assert img.size == (800, 450)
        rgb = img.convert("RGB")
        black = sum(1 for p in rgb.getdata() if max(p) < 40)  # the total energy's line, axes
        orange = sum(1 for p in rgb.getdata() if p[0] > 220 and 100 < p[1] < 160 and p[2] < 60)
    assert black > 1000 and orange > 500, (black, orange)
