#ifndef SC_CACHE_MODE_H
#define SC_CACHE_MODE_H
/*
 * How the response cache is used (docs/providers.md): read and write it,
 * refresh it (ask again, store the answer), leave it off, or answer from
 * it alone (offline, a command-line mode). Its own header so that the
 * configuration (pipeline/config.h) names the mode without the client.
 */
enum sc_cache_mode { SC_CACHE_USE, SC_CACHE_REFRESH, SC_CACHE_OFF, SC_CACHE_OFFLINE };

#endif
