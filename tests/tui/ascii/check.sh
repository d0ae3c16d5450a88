# Outside a UTF-8 locale only ASCII reaches the screen.
set -eu
! LC_ALL=C grep -l '[^ -~]' 01-summary.txt 02-kernel.txt
