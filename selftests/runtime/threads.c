// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest threads: clone(CLONE_THREAD), futex waits and wakes (a contended
 * mutex, a condition variable), CLONE_CHILD_CLEARTID for pthread_join,
 * and a thread-directed signal.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define NTHREADS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int ready;
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void *worker(void *arg)
{
	int i;

	pthread_mutex_lock(&lock);
	while (!ready)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
		if (i % 1000 == 0)
			sched_yield();
	}
	/*
	 * Thread 0 stays until its signal came: had it ended first, the
	 * signal would have gone nowhere (seen on a loaded host).
	 */
	while (arg == NULL && !got_usr1)
		sched_yield();
	return arg;
}

int main(void)
{
	pthread_t th[NTHREADS];
	void *ret;
	int i;

	signal(SIGUSR1, on_usr1);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i))
			return 1;
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_kill(th[0], SIGUSR1);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_join(th[i], &ret) || ret != (void *)(long)i)
			return 2;
	if (counter != (long)NTHREADS * ROUNDS || !got_usr1)
		return 3;
	printf("threads %ld\n", counter);
	return 0;
}
