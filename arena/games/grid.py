"""Facts about one 3x3 grid as 9-bit masks (bit s is square s, row-major 0..8).

Every game here is built from 3x3 grids, so these tables are shared: they turn
the questions rules and agents ask most ("is this a line?", "which squares are
free?") into one tuple index.
"""

FULL = 0b111_111_111

LINES = (
    0b000_000_111, 0b000_111_000, 0b111_000_000,  # rows
    0b001_001_001, 0b010_010_010, 0b100_100_100,  # columns
    0b100_010_001, 0b001_010_100,                 # diagonals
)

#: HAS_LINE[mask] is True when the squares in mask contain three in a row.
HAS_LINE = tuple(any(mask & line == line for line in LINES) for mask in range(512))

#: The right column (squares 2, 5, 8): seed 001's published simulator never scores it as a line
#: of boards, which `ultimate`'s rule option column258=ignored reproduces.
COLUMN_258 = 0b100_100_100

#: HAS_LINE_NO_258[mask]: like HAS_LINE, but the 2-5-8 column does not count.
HAS_LINE_NO_258 = tuple(any(mask & line == line for line in LINES if line != COLUMN_258) for mask in range(512))

#: SQUARES[mask] lists the squares whose bits are set in mask, ascending.
SQUARES = tuple(tuple(s for s in range(9) if mask >> s & 1) for mask in range(512))

#: POPCOUNT[mask] is the number of squares set in mask.
POPCOUNT = tuple(bin(mask).count("1") for mask in range(512))

CENTRE = 4
CORNERS = (0, 2, 6, 8)
EDGES = (1, 3, 5, 7)
