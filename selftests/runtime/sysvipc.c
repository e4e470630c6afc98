// SPDX-License-Identifier: GPL-2.0-only
/*
 * System V IPC, natively and under umlrun: each case prints what the calls
 * returned (and errno), and busybox.sh compares the output with the
 * native one.  Objects are IPC_PRIVATE and removed at the end, so a host
 * with objects of its own gives the same output; ids, times and pids are
 * not printed, only whether they are what they should be.
 *
 *   sysvipc msg   msgget, msgsnd, msgrcv, msgctl: type selection, sizes,
 *                 MSG_NOERROR, MSG_COPY, IPC_NOWAIT, a receiver and a sender
 *                 that wait, IPC_RMID waking a waiter, a signal, bad input
 *   sysvipc sem   semget, semop, semtimedop, semctl: values, undo at exit,
 *                 GETNCNT and GETZCNT of waiters, timeouts, bad input
 *   sysvipc shm   shmget, shmat, shmdt, shmctl: memory shared with a child,
 *                 shm_nattch, SHM_RDONLY, SHM_RND, SHM_REMAP, IPC_RMID of an
 *                 attached segment, /proc/sysvipc/shm, bad input
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

#define BAD ((void *)8)	/* an address no test maps */
/* Keys of this run's own: two runs at once on one host do not meet. */
#define KEY(n) ((key_t)(0x5e000000 | (getpid() & 0xfffff) << 4 | (n)))

static void on_usr1(int sig)
{
	(void)sig;
}

/* A child that runs @fn and exits with its value. */
static pid_t child(int (*fn)(int), int arg)
{
	pid_t p = fork();

	if (p == 0)
		_exit(fn(arg));
	return p;
}

static int reap(pid_t p)
{
	int st;

	if (waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

struct mbuf {
	long type;
	char text[64];
};

static int msg_sender(int id)
{
	struct mbuf m = { 7, "late" };

	usleep(100000);
	return msgsnd(id, &m, 5, 0) ? 1 : 0;
}

static int msg_full_sender(int id)
{
	struct mbuf m = { 2, "full" };

	return msgsnd(id, &m, 4, 0) ? 1 : 0;	/* waits for room */
}

static int msg_rmid_waiter(int id)
{
	struct mbuf m;

	return msgrcv(id, &m, sizeof(m.text), 99, 0) < 0 && errno == EIDRM ? 0 : 1;
}

static void msg_case(void)
{
	struct msqid_ds ds;
	struct msginfo mi;
	struct mbuf m;
	int id = msgget(IPC_PRIVATE, 0600), i;
	long r;
	pid_t p;

	show("msgget", id >= 0);
	/* send: mtype read first, then sizes, type, text, id */
	show("msgsnd bad msgp", msgsnd(id, BAD, 4, 0));
	m.type = 0;
	show("msgsnd mtype 0", msgsnd(id, &m, 4, 0));
	m.type = 1;
	show("msgsnd size > msgmax", msgsnd(id, &m, 1 << 20, 0));
	show("msgsnd size < 0", msgsnd(id, &m, (size_t)-1, 0));
	show("msgsnd id < 0", msgsnd(-1, &m, 4, 0));
	show("msgsnd unknown id", msgsnd(id + 1, &m, 4, 0));
	for (i = 1; i <= 5; i++) {
		m.type = i % 3 + 1;
		snprintf(m.text, sizeof(m.text), "m%d", i);
		show("msgsnd", msgsnd(id, &m, 3, 0));
	}
	show("msgctl IPC_STAT", msgctl(id, IPC_STAT, &ds));
	show("qnum", ds.msg_qnum);
	show("cbytes", ds.msg_cbytes);
	show("lspid is me", ds.msg_lspid == getpid());
	show("mode", ds.msg_perm.mode & 0777);
	/* receive: by type, lowest type, except, sizes */
	r = msgrcv(id, &m, sizeof(m.text), 3, 0);
	printf("type 3: %ld %ld %s\n", r, m.type, m.text);
	r = msgrcv(id, &m, sizeof(m.text), -2, 0);
	printf("type <= 2: %ld %ld %s\n", r, m.type, m.text);
	r = msgrcv(id, &m, sizeof(m.text), 2, MSG_EXCEPT);
	printf("type != 2: %ld %ld %s\n", r, m.type, m.text);
	show("msgrcv too small", msgrcv(id, &m, 2, 0, 0));
	r = msgrcv(id, &m, 2, 0, MSG_NOERROR);
	printf("MSG_NOERROR: %ld %ld %.2s\n", r, m.type, m.text);
	r = msgrcv(id, &m, sizeof(m.text), 0, MSG_COPY | IPC_NOWAIT);
	printf("MSG_COPY 0: %ld %ld %s\n", r, m.type, m.text);
	show("MSG_COPY 1", msgrcv(id, &m, sizeof(m.text), 1, MSG_COPY | IPC_NOWAIT));
	show("MSG_COPY without IPC_NOWAIT", msgrcv(id, &m, sizeof(m.text), 0, MSG_COPY));
	show("MSG_COPY | MSG_EXCEPT", msgrcv(id, &m, 8, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT));
	show("msgrcv bad buffer (message lost)", msgrcv(id, BAD, 8, 0, 0));
	show("msgrcv empty IPC_NOWAIT", msgrcv(id, &m, 8, 0, IPC_NOWAIT));
	show("msgrcv size < 0", msgrcv(id, &m, (size_t)-1, 0, 0));
	/* a receiver that waits, a sender that waits */
	p = child(msg_sender, id);
	r = msgrcv(id, &m, sizeof(m.text), 7, 0);
	printf("waited for: %ld %ld %s, child %d\n", r, m.type, m.text, reap(p));
	ds.msg_qbytes = 8;
	show("IPC_SET qbytes 8", msgctl(id, IPC_SET, &ds));
	m.type = 1;
	show("fill", msgsnd(id, &m, 8, 0));
	show("full IPC_NOWAIT", msgsnd(id, &m, 4, IPC_NOWAIT));
	p = child(msg_full_sender, id);
	usleep(100000);
	show("sender waits: qnum", msgctl(id, IPC_STAT, &ds) ? -1 : (long)ds.msg_qnum);
	show("msgrcv 8", msgrcv(id, &m, sizeof(m.text), 1, 0));
	show("sender", reap(p));
	r = msgrcv(id, &m, sizeof(m.text), 0, IPC_NOWAIT);
	printf("it sent: %ld %ld %.4s\n", r, m.type, m.text);
	/* a signal with a handler interrupts a wait: EINTR */
	signal(SIGUSR1, on_usr1);
	p = fork();
	if (p == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	show("msgrcv interrupted", msgrcv(id, &m, 8, 42, 0));
	reap(p);
	/* bad commands, info */
	show("msgctl cmd -1", msgctl(id, -1, &ds));
	show("msgctl cmd 99", msgctl(id, 99, &ds));
	show("msgctl IPC_STAT bad buf", msgctl(id, IPC_STAT, BAD));
	show("msgctl IPC_SET bad buf", msgctl(id, IPC_SET, BAD));
	show("msgctl IPC_INFO", msgctl(0, IPC_INFO, (struct msqid_ds *)&mi) >= 0);
	printf("msgmax %d msgmnb %d msgssz %d msgseg %d\n", mi.msgmax, mi.msgmnb,
	       mi.msgssz, mi.msgseg);
	show("MSG_STAT of a removed index", msgctl(32767, MSG_STAT, &ds));
	/* IPC_RMID wakes a waiter with EIDRM; the id is gone */
	p = child(msg_rmid_waiter, id);
	usleep(100000);
	show("IPC_RMID", msgctl(id, IPC_RMID, NULL));
	show("waiter got EIDRM", reap(p));
	show("msgsnd removed", msgsnd(id, &m, 4, 0));
	show("IPC_RMID again", msgctl(id, IPC_RMID, NULL));
	/* keys */
	id = msgget(KEY(1), IPC_CREAT | IPC_EXCL | 0600);
	show("msgget key", id >= 0);
	show("msgget key EXCL", msgget(KEY(1), IPC_CREAT | IPC_EXCL | 0600));
	show("msgget key again", msgget(KEY(1), 0) == id);
	show("msgget unknown key", msgget(KEY(2), 0));
	msgctl(id, IPC_RMID, NULL);
}

static int sem_undoer(int id)
{
	struct sembuf op = { 0, 5, SEM_UNDO };

	return semop(id, &op, 1) ? 1 : 0;	/* exit undoes the +5 */
}

static int sem_waiter(int id)
{
	struct sembuf op[2] = { { 1, -1, 0 }, { 0, 0, 0 } };

	return semop(id, op, 1) ? 1 : 0;
}

static int sem_zero_waiter(int id)
{
	struct sembuf op = { 0, 0, 0 };

	return semop(id, &op, 1) ? 1 : 0;
}

static int sem_rmid_waiter(int id)
{
	struct sembuf op = { 2, -1, 0 };

	return semop(id, &op, 1) < 0 && errno == EIDRM ? 0 : 1;
}

static void sem_case(void)
{
	unsigned short vals[3] = { 1, 2, 3 }, got[3];
	struct sembuf op[2];
	struct semid_ds ds;
	struct timespec ts = { 0, 50000000 };
	int id = semget(IPC_PRIVATE, 3, 0600);
	pid_t p1, p2;

	show("semget", id >= 0);
	show("semget 0 sems", semget(IPC_PRIVATE, 0, 0600));
	show("semget -1 sems", semget(IPC_PRIVATE, -1, 0600));
	show("SETALL", semctl(id, 0, SETALL, vals));
	show("GETALL", semctl(id, 0, GETALL, got));
	printf("values %d %d %d\n", got[0], got[1], got[2]);
	show("SETVAL 40000", semctl(id, 0, SETVAL, 40000));
	show("SETVAL -1", semctl(id, 0, SETVAL, -1));
	show("SETVAL sem 3", semctl(id, 3, SETVAL, 1));
	show("GETVAL sem -1", semctl(id, -1, GETVAL));
	show("GETPID is me", semctl(id, 1, GETPID) == getpid());
	show("IPC_STAT", semctl(id, 0, IPC_STAT, &ds));
	show("nsems", ds.sem_nsems);
	/* operations: all or none */
	op[0] = (struct sembuf){ 0, -1, 0 };
	op[1] = (struct sembuf){ 1, -5, IPC_NOWAIT };
	show("all or none", semop(id, op, 2));
	show("value 0 kept", semctl(id, 0, GETVAL));
	op[0] = (struct sembuf){ 0, 32767, 0 };
	show("ERANGE", semop(id, op, 1));
	op[0] = (struct sembuf){ 3, 1, 0 };
	show("EFBIG", semop(id, op, 1));
	show("nsops 0", semop(id, op, 0));
	show("nsops 501", semop(id, op, 501));
	show("bad sops", semop(id, BAD, 1));
	show("id -1", semop(-1, op, 1));
	op[0] = (struct sembuf){ 0, 0, IPC_NOWAIT };
	show("wait for zero IPC_NOWAIT", semop(id, op, 1));
	op[0] = (struct sembuf){ 0, -2, 0 };
	show("semtimedop times out", semtimedop(id, op, 1, &ts));
	ts.tv_nsec = 1000000000;
	show("semtimedop bad timeout", semtimedop(id, op, 1, &ts));
	show("semtimedop bad timeout pointer", semtimedop(id, op, 1, BAD));
	/* undo at exit */
	p1 = child(sem_undoer, id);
	show("undoer", reap(p1));
	show("value after undo", semctl(id, 0, GETVAL));
	/* GETNCNT and GETZCNT of waiters */
	semctl(id, 1, SETVAL, 0);
	p1 = child(sem_waiter, id);
	p2 = child(sem_zero_waiter, id);
	usleep(150000);
	show("GETNCNT 1", semctl(id, 1, GETNCNT));
	show("GETZCNT 0", semctl(id, 0, GETZCNT));
	show("GETNCNT 0", semctl(id, 0, GETNCNT));
	op[0] = (struct sembuf){ 1, 1, 0 };
	show("wake the waiter", semop(id, op, 1));
	show("waiter", reap(p1));
	show("SETVAL 0 wakes the zero waiter", semctl(id, 0, SETVAL, 0));
	show("zero waiter", reap(p2));
	/* a signal with a handler: EINTR */
	signal(SIGUSR1, on_usr1);
	p1 = fork();
	if (p1 == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	op[0] = (struct sembuf){ 2, -100, 0 };
	show("semop interrupted", semop(id, op, 1));
	reap(p1);
	/* bad commands */
	show("semctl cmd 99", semctl(id, 0, 99));
	show("semctl IPC_STAT bad buf", semctl(id, 0, IPC_STAT, BAD));
	show("semctl GETALL bad buf", semctl(id, 0, GETALL, BAD));
	/* IPC_RMID wakes with EIDRM */
	semctl(id, 2, SETVAL, 0);
	p1 = child(sem_rmid_waiter, id);
	usleep(100000);
	show("IPC_RMID", semctl(id, 0, IPC_RMID));
	show("waiter got EIDRM", reap(p1));
	show("GETVAL removed", semctl(id, 0, GETVAL));
	id = semget(KEY(3), 2, IPC_CREAT | 0600);
	show("semget key", id >= 0);
	show("semget key, more sems", semget(KEY(3), 3, 0));
	show("semget key, fewer sems", semget(KEY(3), 1, 0) == id);
	semctl(id, 0, IPC_RMID);
}

static char *shm_at;

static int shm_child(int id)
{
	(void)id;
	if (strcmp(shm_at, "parent"))
		return 1;
	strcpy(shm_at, "child");
	return 0;
}

static int shm_ro_writer(int id)
{
	char *p = shmat(id, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		return 2;
	p[0] = 'x';		/* SIGSEGV */
	return 0;
}

static unsigned long nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? (unsigned long)-1 : ds.shm_nattch;
}

static void shm_case(void)
{
	int id = shmget(IPC_PRIVATE, 10000, 0600), found = 0;
	struct shmid_ds ds;
	char line[512], *p, *q;
	FILE *f;
	pid_t c;

	show("shmget", id >= 0);
	show("shmget size 0", shmget(IPC_PRIVATE, 0, 0600));
	show("shmctl IPC_STAT", shmctl(id, IPC_STAT, &ds));
	show("segsz", ds.shm_segsz);
	show("cpid is me", ds.shm_cpid == getpid());
	show("nattch", ds.shm_nattch);
	shm_at = shmat(id, NULL, 0);
	show("shmat", shm_at != (void *)-1);
	show("nattch after shmat", nattch(id));
	strcpy(shm_at, "parent");
	c = child(shm_child, id);
	show("child", reap(c));
	printf("the child wrote: %s\n", shm_at);
	show("shared with a forked child, then not", nattch(id));
	show("SHM_RDONLY write", reap(child(shm_ro_writer, id)));
	/* addresses */
	show("shmat unaligned", (long)shmat(id, shm_at + 1, 0));
	show("shmat over a mapping", (long)shmat(id, shm_at, 0));
	show("SHM_REMAP without an address", (long)shmat(id, NULL, SHM_REMAP));
	p = shmat(id, shm_at + 1, SHM_RND | SHM_REMAP);
	show("SHM_RND | SHM_REMAP at the same place", p == shm_at);
	show("still one attachment", nattch(id));
	show("data kept", strcmp(p, "child") == 0);
	show("shmat id -1", (long)shmat(-1, NULL, 0));
	show("shmat unknown id", (long)shmat(id + 1, NULL, 0));
	q = shmat(id, NULL, SHM_RDONLY);
	show("second attachment", nattch(id));
	show("reads the same", strcmp(q, "child") == 0);
	show("shmdt unaligned", shmdt(q + 1));
	show("shmdt no segment", shmdt(&found));
	show("shmdt", shmdt(q));
	show("shmdt again", shmdt(q));
	show("after shmdt", nattch(id));
	/* /proc/sysvipc/shm lists it */
	f = fopen("/proc/sysvipc/shm", "re");
	while (f && fgets(line, sizeof(line), f)) {
		int key, sid;
		unsigned long size;

		if (sscanf(line, "%d %d %*o %lu", &key, &sid, &size) == 3 &&
		    sid == id && size == 10000)
			found = 1;
	}
	if (f)
		fclose(f);
	show("in /proc/sysvipc/shm", found);
	/* removed while attached: SHM_DEST, no key, still there */
	show("IPC_RMID", shmctl(id, IPC_RMID, NULL));
	show("IPC_STAT after IPC_RMID", shmctl(id, IPC_STAT, &ds));
	show("SHM_DEST", !!(ds.shm_perm.mode & 01000));
	show("key", ds.shm_perm.__key);
	show("memory still there", strcmp(shm_at, "child") == 0);
	show("shmdt the last", shmdt(shm_at));
	show("gone", shmctl(id, IPC_STAT, &ds));
	/* bad commands and buffers */
	id = shmget(KEY(4), 4096, IPC_CREAT | 0600);
	show("shmget key", id >= 0);
	show("shmget key, larger", shmget(KEY(4), 8192, 0));
	show("shmget key EXCL", shmget(KEY(4), 4096, IPC_CREAT | IPC_EXCL));
	show("shmctl cmd 99", shmctl(id, 99, &ds));
	show("shmctl IPC_STAT bad buf", shmctl(id, IPC_STAT, BAD));
	show("shmctl IPC_SET bad buf", shmctl(id, IPC_SET, BAD));
	show("shmctl SHM_LOCK", shmctl(id, SHM_LOCK, NULL));
	shmctl(id, IPC_STAT, &ds);
	show("SHM_LOCKED", !!(ds.shm_perm.mode & 02000));
	show("shmctl SHM_UNLOCK", shmctl(id, SHM_UNLOCK, NULL));
	show("IPC_RMID", shmctl(id, IPC_RMID, NULL));
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && strcmp(argv[1], "msg") == 0)
		msg_case();
	else if (argc == 2 && strcmp(argv[1], "sem") == 0)
		sem_case();
	else if (argc == 2 && strcmp(argv[1], "shm") == 0)
		shm_case();
	else
		return 2;
	return 0;
}
