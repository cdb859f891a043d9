#ifndef EARSHOT_QUIET_MPG123_H
#define EARSHOT_QUIET_MPG123_H

/// Whether a libmpg123 handle has been made quiet by Earshot's mpg123_new (1 once one has).
int earshot_mpg123_quieted(void);

#endif
