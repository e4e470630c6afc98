// SPDX-License-Identifier: GPL-2.0
/*
 * Threads in a UML guest (static, pthreads): a mutex-protected counter
 * from four threads, a condition-variable ping-pong, thread-local storage,
 * a barrier, join values, a signal sent to one thread, and fork from a
 * threaded process.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

#define THREADS	4
#define ROUNDS	20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static __thread long mine;

static void *count(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
		mine++;
	}
	return (void *)(mine + (intptr_t)arg);
}

static pthread_mutex_t pp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pp_cond = PTHREAD_COND_INITIALIZER;
static int turn, volleys;

static void *pong(void *arg)
{
	int me = (int)(intptr_t)arg;

	pthread_mutex_lock(&pp_lock);
	while (volleys < 2000) {
		while (turn != me && volleys < 2000)
			pthread_cond_wait(&pp_cond, &pp_lock);
		if (volleys >= 2000)
			break;
		volleys++;
		turn = !me;
		pthread_cond_broadcast(&pp_cond);
	}
	pthread_mutex_unlock(&pp_lock);
	return NULL;
}

static pthread_barrier_t barrier;
static int arrived[THREADS];

static void *meet(void *arg)
{
	int i = (int)(intptr_t)arg, all = 1;

	__atomic_store_n(&arrived[i], 1, __ATOMIC_SEQ_CST);
	pthread_barrier_wait(&barrier);
	for (int j = 0; j < THREADS; j++)
		all &= __atomic_load_n(&arrived[j], __ATOMIC_SEQ_CST);
	return (void *)(intptr_t)all;
}

static volatile pid_t usr1_tid;
static void on_usr1(int sig)
{
	(void)sig;
	usr1_tid = (pid_t)syscall(SYS_gettid);
}

static volatile int go;
static void *wait_for_signal(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	while (!usr1_tid)
		usleep(1000);
	return NULL;
}

static void *spin_a_while(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		sched_yield();
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	void *ret;
	int good = 1;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, count, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], &ret);
		good &= (intptr_t)ret == ROUNDS + i;
	}
	result("four threads count under a mutex", counter == THREADS * ROUNDS,
	       "counter %ld", counter);
	result("thread-local storage and join values", good && mine == 0, "mine %ld", mine);

	pthread_create(&t[0], NULL, pong, (void *)0);
	pthread_create(&t[1], NULL, pong, (void *)1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	result("condition variable ping-pong, 2000 volleys", volleys == 2000, "%d", volleys);

	pthread_barrier_init(&barrier, NULL, THREADS);
	good = 1;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, meet, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], &ret);
		good &= (intptr_t)ret;
	}
	result("barrier", good, "a thread passed early");

	/* A signal to one thread runs its handler in that thread. */
	struct sigaction sa = { .sa_handler = on_usr1 };
	pid_t tid = 0;

	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t[0], NULL, wait_for_signal, &tid);
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		sched_yield();
	pthread_kill(t[0], SIGUSR1);
	pthread_join(t[0], NULL);
	result("pthread_kill reaches its thread", usr1_tid == tid, "other thread");

	/* fork while another thread runs: the child has one thread. */
	pthread_create(&t[0], NULL, spin_a_while, NULL);
	pid_t pid = fork();

	if (pid == 0) {
		pthread_mutex_lock(&lock);
		counter = -1;
		pthread_mutex_unlock(&lock);
		_exit(counter == -1 ? 0 : 1);
	}
	int status;

	waitpid(pid, &status, 0);
	pthread_join(t[0], NULL);
	result("fork from a threaded process", WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	       counter == THREADS * ROUNDS, "status 0x%x", status);
	return report_done();
}
