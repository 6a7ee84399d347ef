"""What a person at a terminal reads and types, shared by the commands: colour and wrapped lines,
progress bars, typed lines, the table of moves, a match's events and board, the hint."""
