#!/usr/bin/env python3
"""libvkphys.so exports its public API and nothing else: every dynamic symbol it defines is a
name the headers in include/vkphys/ mark VKPHYS_API (a class's members, typeinfo and vtable, or
a function) or a libstdc++ template instantiation over standard and API types, and every
VKPHYS_API name is exported. Its internals (vkphys::kern, ::io, ::gpu, ...) and
the libraries linked into it (volk, fmt's and nlohmann/json's templates) stay inside, so they
cannot clash with a program's own copies (a program with its own volk keeps its function table).

usage: check_exports.py LIBRARY INCLUDE_DIR
"""
import re
import subprocess
import sys
from pathlib import Path


def api_names(include_dir):
    """The classes and functions the public headers mark VKPHYS_API."""
    classes, functions = set(), set()
    for header in sorted(Path(include_dir, "vkphys").glob("*.h")):
        text = header.read_text()
        classes.update(re.findall(r"\b(?:class|struct) VKPHYS_API (\w+)", text))
        for decl in re.findall(r"^VKPHYS_API [^;]*?(\w+)\(", text, re.M):
            functions.add(decl)
    return classes, functions


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", library], capture_output=True,
                         text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            names.append(parts[2])
    return names


def without_return_type(name):
    """nm prints a function template's instantiation with its return type first ("void
    std::__detail::__to_chars_10_impl<unsigned int>(...)", emitted out of line where the
    optimiser does not inline it, as under the asan preset's -O1; clang's a trailing one as
    "decltype (...) std::construct_at<...>(...)"): the name from the first space outside
    parentheses and angle brackets that a std:: or __gnu_cxx:: name follows."""
    depth = 0
    for i, ch in enumerate(name):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        elif ch == " " and depth == 0 and name.startswith(("std::", "__gnu_cxx::"), i + 1):
            return name[i + 1:]
    return name


def main():
    library, include_dir = sys.argv[1], sys.argv[2]
    classes, functions = api_names(include_dir)
    if not classes or not functions:
        sys.exit(f"no VKPHYS_API names found under {include_dir}")
    prefix = r"^(?:typeinfo for |typeinfo name for |vtable for )?"
    allowed = [re.compile(prefix + rf"vkphys::{c}\b") for c in sorted(classes)]
    # A function returning std::string carries its ABI tag: vkphys::f[abi:cxx11](...).
    call = r"(?:\[abi:\w+\])?\("
    allowed += [re.compile(rf"^vkphys::{f}{call}") for f in sorted(functions)]
    names = exported(library)

    def libstdcxx(n):
        """A libstdc++ template instantiation (its headers give namespace std default
        visibility, so instantiations for the library's own use are exported as weak, vague
        linkage symbols that merge with a program's identical ones), of std types or the API's."""
        bare = without_return_type(re.sub(prefix, "", n))
        return (bare.startswith(("std::", "__gnu_cxx::")) and
                all(c in classes for c in re.findall(r"vkphys::(\w+)", n)))

    def instrumentation(n):
        """What the asan preset's clang instrumentation adds: the typeinfo of function types
        ("typeinfo for char* (char*, int)") for UBSan's indirect-call checks
        (-fsanitize=function), over std and the API's types, and the bounds of libFuzzer's
        coverage sections (-fsanitize=fuzzer-no-link)."""
        if re.match(r"^__(?:start|stop)___sancov_\w+$", n):
            return True
        m = re.match(r"^typeinfo (?:name )?for (.* \(.*\))$", n)
        return m is not None and all(c in classes for c in re.findall(r"vkphys::(\w+)", n))

    stray = [n for n in names if not any(a.match(n) for a in allowed) and not libstdcxx(n)
             and not instrumentation(n)]
    missing = [c for c in sorted(classes) if not any(n.startswith(f"vkphys::{c}::") or
                                                     n == f"typeinfo for vkphys::{c}"
                                                     for n in names)]
    missing += [f for f in sorted(functions)
                if not any(re.match(rf"vkphys::{f}{call}", n) for n in names)]
    print(f"{library}: {len(names)} exported symbols; the API: {len(classes)} classes, "
          f"{len(functions)} functions")
    if stray:
        print(f"{len(stray)} exported symbols are not the public API, e.g.:")
        for n in stray[:25]:
            print("   ", n)
    if missing:
        print("public API names not exported:", ", ".join(missing))
    return 1 if stray or missing else 0


if __name__ == "__main__":
    sys.exit(main())
