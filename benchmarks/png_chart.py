"""A bar chart written as a PNG with the standard library alone (zlib and struct), so that the benchmark
draws its chart on any machine, the GPU machine without network included, with nothing to install.

Text uses a 5x7 pixel font drawn here (capitals, digits and the punctuation benchmark labels need);
lower-case letters print as capitals.
"""
import struct
import zlib
from typing import List, Sequence, Tuple

_GLYPHS = {
    "A": ".###.#...##...#######...##...##...#", "B": "####.#...##...#####.#...##...#####.",
    "C": ".#####....#....#....#....#.....####", "D": "####.#...##...##...##...##...#####.",
    "E": "######....#....####.#....#....#####", "F": "######....#....####.#....#....#....",
    "G": ".#####....#....#.####...##...#.####", "H": "#...##...##...#######...##...##...#",
    "I": "#####..#....#....#....#....#..#####", "J": "..###...#....#....#....##..#..##...",
    "K": "#...##..#.#.#..##...#.#..#..#.#...#", "L": "#....#....#....#....#....#....#####",
    "M": "#...###.###.#.##.#.##...##...##...#", "N": "#...###..##.#.##..###...##...##...#",
    "O": ".###.#...##...##...##...##...#.###.", "P": "####.#...##...#####.#....#....#....",
    "Q": ".###.#...##...##...##.#.##..#..##.#", "R": "####.#...##...#####.#.#..#..#.#...#",
    "S": ".#####....#.....###.....#....#####.", "T": "#####..#....#....#....#....#....#..",
    "U": "#...##...##...##...##...##...#.###.", "V": "#...##...##...##...##...#.#.#...#..",
    "W": "#...##...##...##.#.##.#.###.###...#", "X": "#...##...#.#.#...#...#.#.#...##...#",
    "Y": "#...##...#.#.#...#....#....#....#..", "Z": "#####....#...#...#...#...#....#####",
    "0": ".###.#...##..###.#.###..##...#.###.", "1": "..#...##....#....#....#....#...###.",
    "2": ".###.#...#....#...#...#...#...#####", "3": "####.....#....#.###.....#....#####.",
    "4": "...#...##..#.#.#..#.#####...#....#.", "5": "######....####.....#....##...#.###.",
    "6": ".###.#....#....####.#...##...#.###.", "7": "#####....#...#...#...#....#....#...",
    "8": ".###.#...##...#.###.#...##...#.###.", "9": ".###.#...##...#.####....#....#.###.",
    " ": "." * 35, ".": "." * 25 + ".##...##..", ",": "." * 20 + ".##....#...#...",
    ":": "".join((".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....")), "-": "." * 15 + "#####" + "." * 15,
    "_": "." * 30 + "#####", "/": "....#....#...#...#...#...#....#....",
    "(": "...#...#...#....#....#.....#.....#.", ")": ".#.....#.....#....#....#...#...#...",
    "%": "##..###..#...#...#...#...#..###..##", "<": "...#...#...#...#.....#.....#.....#.",
    ">": ".#.....#.....#.....#...#...#...#...", "=": "..........#####.....#####..........",
    "+": ".......#....#..#####..#....#.......", "'": "..#....#...........................",
    "?": ".###.#...#...#...#....#.......#....",
}
Color = Tuple[int, int, int]
WHITE, BLACK, GRID = (255, 255, 255), (30, 30, 30), (225, 225, 225)


class Canvas:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(WHITE) * (width * height))

    def rect(self, x: int, y: int, w: int, h: int, color: Color) -> None:
        x0, x1 = max(0, x), min(self.width, x + w)
        for row in range(max(0, y), min(self.height, y + h)):
            start = (row * self.width + x0) * 3
            self.pixels[start:start + (x1 - x0) * 3] = bytes(color) * max(0, x1 - x0)

    def text(self, x: int, y: int, text: str, color: Color = BLACK, scale: int = 2) -> None:
        for i, ch in enumerate(text.upper()):
            glyph = _GLYPHS.get(ch, _GLYPHS["?"])
            for bit, on in enumerate(glyph):
                if on == "#":
                    self.rect(x + (i * 6 + bit % 5) * scale, y + (bit // 5) * scale, scale, scale, color)

    def png(self) -> bytes:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        stride = self.width * 3
        raw = b"".join(b"\x00" + bytes(self.pixels[r * stride:(r + 1) * stride]) for r in range(self.height))
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)  # 8-bit RGB
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + \
            chunk(b"IEND", b"")


def text_width(text: str, scale: int = 2) -> int:
    return len(text) * 6 * scale


def write_bar_chart(path: str, title: str, series: Sequence[Tuple[str, Color]],
                    rows: List[Tuple[str, Sequence[Tuple[float, str]]]], note: str = "") -> None:
    """One group of bars per row: ``rows`` holds (label, [(value, value text) per series]); bars of a row
    are scaled to the row's largest value, since rows mix units (microseconds, GB/s)."""
    bar_h, gap, left, width = 14, 4, 20, 1100
    row_h = 18 + len(series) * (bar_h + gap) + 10
    height = 80 + len(rows) * row_h + 30
    c = Canvas(width, height)
    c.text(left, 14, title, scale=3)
    x = left
    for name, color in series:  # legend
        c.rect(x, 48, 14, 14, color)
        c.text(x + 20, 48, name)
        x += 20 + text_width(name) + 30
    y = 80
    bar_max = width - left - 260
    for label, values in rows:
        c.rect(left, y - 4, width - 2 * left, 1, GRID)
        c.text(left, y, label)
        top = max((v for v, _ in values), default=0.0) or 1.0
        for i, ((value, shown), (_, color)) in enumerate(zip(values, series)):
            y_bar = y + 18 + i * (bar_h + gap)
            length = max(1, int(bar_max * value / top)) if value > 0 else 0
            c.rect(left, y_bar, length, bar_h, color)
            c.text(left + length + 8, y_bar, shown)
        y += row_h
    if note:
        c.text(left, height - 24, note, color=(90, 90, 90))
    with open(path, "wb") as f:
        f.write(c.png())
