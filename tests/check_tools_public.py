#!/usr/bin/env python3
"""The command line is the library's first client (issue 12): every file in tools/ includes only
the public headers (vkphys/...), its own (tools/...) and system or third-party ones it uses
itself, never the library's private headers (host/, kernels/, lib/) or Vulkan (volk.h,
vulkan/...), which no public header exposes.

usage: check_tools_public.py TOOLS_DIR
"""
import re
import sys
from pathlib import Path

PRIVATE = re.compile(r'^\s*#\s*include\s*[<"]((?:host|kernels|lib)/[^">]+|volk\.h|vulkan/[^">]+)[">]',
                     re.M)


def main():
    tools = Path(sys.argv[1])
    files = sorted(p for p in tools.iterdir() if p.suffix in (".cpp", ".h"))
    if not files:
        sys.exit(f"no sources in {tools}")
    bad = [(p.name, m.group(1)) for p in files for m in PRIVATE.finditer(p.read_text())]
    for name, header in bad:
        print(f"{name} includes the private {header}")
    print(f"{len(files)} files in {tools}: {len(bad)} private includes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
