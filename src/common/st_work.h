/*-------------------------------------------------------------------------
 *
 * st_work.h
 *		A background worker's unit of work on behalf of a role (st_work.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_WORK_H
#define ST_WORK_H

/* One unit of work: its transaction, role and GUC nest level. */
typedef struct StWork
{
	bool		block;			/* a transaction block (Citus, st_xact.c) */
	bool		as_role;		/* st_work_as_role was called */
	bool		hard_limit;		/* st_work_hard_limit armed its timeout */
	int			nest;			/* the unit's GUC nest level */
	Oid			save_user;		/* the worker's own user and context */
	int			save_sec;
} StWork;

/* Start the unit: a transaction, a snapshot, a GUC nest level. */
extern void st_work_begin(StWork *work);

/*
 * From here to the end of the unit, run as role, restricted, with SET
 * CONSTRAINTS ALL IMMEDIATE.
 */
extern void st_work_as_role(StWork *work, Oid role);

/*
 * Commit: what the unit set is undone and the transaction commits, still
 * as the role; back to the worker's own user.
 */
extern void st_work_commit(StWork *work);

/*
 * End the worker (FATAL, which the role's code cannot catch) if the unit
 * still runs ms milliseconds from now: the bound behind a unit's own
 * statement timeout.  0: none.  Disarmed by st_work_commit / st_work_abort.
 */
extern void st_work_hard_limit(StWork *work, int ms);

/* After an error, in place of st_work_commit: abort, back to the worker. */
extern void st_work_abort(StWork *work);

#endif							/* ST_WORK_H */
