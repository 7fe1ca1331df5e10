#ifndef SC_BANNED_H
#define SC_BANNED_H
/*
 * Functions that make overflows or races easy. Including this header (every
 * module does, through common.h) turns any use into a compile error.
 * Use sc_buf, snprintf, strtok_r, localtime_r/gmtime_r instead.
 */
#define SC_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) SC_BANNED(strcpy)
#undef strcat
#define strcat(x, y) SC_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) SC_BANNED(strncpy)
#undef sprintf
#define sprintf(...) SC_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SC_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) SC_BANNED(strtok)
#undef gets
#define gets(x) SC_BANNED(gets)
#undef localtime
#define localtime(t) SC_BANNED(localtime)
#undef gmtime
#define gmtime(t) SC_BANNED(gmtime)

#endif
