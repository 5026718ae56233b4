# Convenience for machines that have make; the scripts work without it (Raspberry Pi OS Lite).
.PHONY: run test
run:
	./run
test:
	./test
