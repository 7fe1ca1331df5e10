/*
 * skillci.yml through sc_config_load() with the input as --config (libyaml
 * node tree, key handlers, value and path checks, the skills manifest).
 * The first byte chooses whether the input is read as skillci.yml or as
 * upskill.config.yaml at the repository root.
 */
#include "fuzz.h"
#include "pipeline/config.h"
#include "diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_config cfg;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf path = SC_BUF_INIT;
	bool upskill = false;

	if (size > 0) {
		upskill = data[0] & 1;
		data++, size--;
	}
	if (upskill) {
		fuzz_write(&path, SC_UPSKILL_CONFIG_FILE, data, size);
		sc_config_load(&cfg, fuzz_dir(), NULL, &diags);
		unlink(path.ptr);
	} else {
		fuzz_write(&path, "fuzz.yml", data, size);
		sc_config_load(&cfg, fuzz_dir(), path.ptr, &diags);
	}
	for (size_t i = 0; i < cfg.nskills; i++)
		sc_config_find_skill(&cfg, cfg.skills[i].skill);
	sc_config_provider_limit(&cfg, "anthropic");
	sc_buf_release(&path);
	sc_diags_release(&diags);
	sc_config_release(&cfg);
	return 0;
}
