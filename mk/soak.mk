# Soak test (tests/soak/soak.sh): 20,000 units against the fake model server
# with random faults; every unit accounted for, RSS sampled and checked flat.
# Not part of make check. SOAK_TESTS=100 for a short run.

.PHONY: soak
soak: programs
	@SKILLCI=$(abspath $(SKILLCI)) SKILLCI_ROOT=$(CURDIR) sh tests/soak/soak.sh
