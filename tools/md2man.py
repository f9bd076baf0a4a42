#!/usr/bin/env python3
"""md2man.py NAME SECTION SUMMARY SOURCE.md > NAME.SECTION

A manual page from the Markdown gostap's reference pages are written in
(doc/*.md): `##` and `###` headings, paragraphs, bullet and numbered
lists (nested by two spaces), fenced code blocks, pipe tables (through
tbl), inline `code`, **bold**, *italic* and [links](target).  Nothing
else is Markdown to it: a construct it does not know fails the build
with the file and line, so that a page never renders wrong unnoticed.
"""
import re
import sys


class Bad(Exception):
    pass


def esc(text):
    """TEXT safe in roff running text: backslashes and a leading dot or
    quote escaped."""
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text)


def inline(text):
    """Markdown's inline forms to roff fonts: code spans bold (restoring
    the font around them, so that they may sit in a bold span), bold,
    italic, links as their text and target."""
    codes = []

    def keep(m):
        codes.append(m.group(1).replace("\\", "\\e").replace("-", "\\-"))
        return f"\0{len(codes) - 1}\0"
    text = re.sub(r"`([^`]+)`", keep, text)
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)",
                  lambda m: m.group(1) if m.group(2).startswith("#")
                  else f"{m.group(1)} ({m.group(2)})", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\\fI\1\\fR", text)
    text = re.sub(r"\0(\d+)\0", lambda m: "\\fB" + codes[int(m.group(1))] + "\\fP", text)
    return re.sub(r"^([.'])", r"\\&\1", text)


def table(rows, where):
    """A pipe table (header, rule, rows) as tbl input, every cell a text
    block so that long cells wrap."""
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    if len(cells) < 2 or not re.fullmatch(r"[\s|:-]+", rows[1]):
        raise Bad(f"{where}: a table without its header rule")
    head, body = cells[0], cells[2:]
    n = len(head)
    for r in body:
        if len(r) != n:
            raise Bad(f"{where}: a table row of {len(r)} cells, its header has {n}")
    out = [".ad l", ".TS", "allbox tab(@);", " ".join(["lbx"] * n), " ".join(["lx"] * n) + "."]
    for r in [head] + body:
        out.append("@".join("T{\n" + inline(c).replace("@", "\\(at") + "\nT}" for c in r))
    out += [".TE", ".ad"]
    return out


def convert(name, section, summary, lines, path):
    out = ["'\\\" t", f'.TH {name.upper()} {section} "2026" "gostap" "gostap manual"',
           ".SH NAME", f"{name} \\- {esc(summary)}"]
    i, para = 0, []
    depth = 0          # open .RS levels for nested list items

    def flush():
        if para:
            out.append(".PP")
            out.append(inline(" ".join(para)))
            para.clear()

    def close_lists():
        nonlocal depth
        while depth > 0:
            out.append(".RE")
            depth -= 1

    while i < len(lines):
        line = lines[i]
        where = f"{path}:{i + 1}"
        if line.startswith("```"):
            flush()
            close_lists()
            out += [".PP", ".RS 4", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(esc(lines[i]) if lines[i] else "")
                i += 1
            if i == len(lines):
                raise Bad(f"{where}: a code block that does not end")
            out += [".fi", ".RE"]
            i += 1
            continue
        if line.startswith("#### ") or line.startswith("# "):
            raise Bad(f"{where}: only ## and ### headings")
        if line.startswith("## ") or line.startswith("### "):
            flush()
            close_lists()
            mac = ".SH" if line.startswith("## ") else ".SS"
            title = line.split(" ", 1)[1].strip()
            out.append(f'{mac} "{inline(title.upper() if mac == ".SH" else title)}"')
            i += 1
            continue
        if line.startswith("|"):
            flush()
            close_lists()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            out += table(rows, where)
            continue
        m = re.match(r"^( *)(- |\d+\. )(.*)$", line)
        if m:
            flush()
            level = len(m.group(1)) // 2
            if len(m.group(1)) % 2:
                raise Bad(f"{where}: a list item indented by an odd number of spaces")
            while depth < level:
                out.append(".RS 2")
                depth += 1
            while depth > level:
                out.append(".RE")
                depth -= 1
            mark = "\\(bu" if m.group(2) == "- " else m.group(2).strip()
            item = [m.group(3)]
            i += 1
            indent = len(m.group(1)) + len(m.group(2))
            while (i < len(lines) and lines[i].strip()
                   and not re.match(r"^ *(- |\d+\. )", lines[i])
                   and not lines[i].startswith(("```", "|", "#"))
                   and lines[i].startswith(" " * indent)):
                item.append(lines[i].strip())
                i += 1
            out.append(f".IP {mark} {4 if mark != chr(92) + '(bu' else 2}")
            out.append(inline(" ".join(item)))
            continue
        if not line.strip():
            flush()
            if not (i + 1 < len(lines) and re.match(r"^ +(- |\d+\. )", lines[i + 1])):
                close_lists()
            i += 1
            continue
        if line.startswith(" ") and depth == 0 and not para:
            raise Bad(f"{where}: an indented line outside a list or code block")
        if depth and not para:
            close_lists()
        para.append(line.strip())
        i += 1
    flush()
    close_lists()
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: md2man.py NAME SECTION SUMMARY SOURCE.md")
    name, section, summary, path = sys.argv[1:]
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        print("\n".join(convert(name, section, summary, lines, path)))
    except (OSError, Bad) as e:
        sys.exit(f"md2man.py: {e}")


if __name__ == "__main__":
    main()
