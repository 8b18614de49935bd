/* Internal to the simulator: the state of one launch (SimLaunch: the kernel's
 * variable slots and shared-memory plan, the CTAs of one cluster at a time),
 * of a CTA (its shared memory and barriers, its warps' pending collectives)
 * and of a thread (values, local buffers and an explicit stack of statement
 * frames, so that a thread can stop at a barrier or a warp collective and be
 * resumed later). fp.c owns dtype values and their rounding, mem.c the
 * memory regions and the checker's shadow state, expr.c expressions and
 * builtin calls, ptx.c the T.ptx instructions (and the ldmatrix, stmatrix
 * and mma fragments), coll.c the rendezvous of barriers, warp and warpgroup
 * collectives, async.c mbarriers, asynchronous copies, TMA and clusters,
 * order.c the happens-before order of a CTA's threads (vector clocks) and
 * the asynchronous operations in flight,
 * wgmma.c the warpgroup MMA and the matrix descriptors' layouts, tcgen05.c
 * tensor memory and the tcgen05 instructions, exec.c statements, threads and scheduling,
 * launch.c the session and the launch's plan. Prefix: sim_. */
#ifndef TX_SIM_INTERNAL_H
#define TX_SIM_INTERNAL_H

#include "../ir/ptx.h"
#include "../ir/visit.h"
#include "sim.h"

/* A scalar value: integers (and pointers) in i, floats in f, rounded to
 * their dtype. Vector expressions are evaluated one lane at a time. */
typedef union SimVal {
    int64_t i;
    double f;
} SimVal;

/* ---------------------------------------------------------------- fp.c */

/* x rounded to float dtype t (round to nearest even; fp8 saturates). */
double sim_round(IrDType t, double x);
/* The bits of v as dtype t stores them (t.bits wide, one lane). */
uint64_t sim_to_bits(IrDType t, SimVal v);
SimVal sim_from_bits(IrDType t, uint64_t bits);
/* v of dtype `from` converted to dtype `to` (a cast). */
SimVal sim_convert(IrDType from, IrDType to, SimVal v);
/* An integer wrapped to dtype t. */
int64_t sim_wrap(IrDType t, int64_t v);
bool sim_is_float(IrDType t);
/* Whether t is a sub-byte float (fp4, fp6; packed or _align16). */
bool sim_packed(IrDType t);

/* ---------------------------------------------------------------- memory */

typedef enum { SIM_MEM_GLOBAL, SIM_MEM_SHARED } SimMemKind;

typedef struct SimRegion {
    uint8_t *base;
    size_t size;
    SimMemKind kind;
    uint8_t *init;      /* shared: SIM_WRITTEN, and SIM_GENERIC when that last write
                         * was through the generic proxy (a thread's store, stmatrix,
                         * cp.async), not an async-proxy copy's */
    uint16_t *writer;   /* shared: 1 + the thread of the cluster that last wrote the byte */
    uint32_t *wclock;   /* shared: that thread's clock at the write */
    uint32_t *wat;      /* shared: 1 + the source offset of that write (0: unknown) */
    uint16_t *reader;   /* shared: 1 + the last thread to read it since that write */
    uint32_t *rclock;   /* shared: its clock at the read */
    uint32_t *rat;      /* shared: 1 + the source offset of that read */
    uint8_t *async;     /* shared: SIM_PEND_*, an asynchronous operation in flight on it */
    uint32_t *gwriter;  /* global: 1 + the grid-linear index of the CTA whose plain store
                         * wrote the byte in the current launch (0: none; made at the first) */
    uint32_t *gfence;   /* global: that CTA's gpu-scope fences before the store */
    const char *name;   /* global: the argument it is (NULL: unnamed) */
    struct SimCta *cta; /* shared: the CTA it belongs to */
} SimRegion;

/* What an asynchronous operation in flight does to a shared byte: writes it
 * (a load's destination: reading or writing it is an error) or reads it (a
 * store's source, a wgmma's operand: writing it is an error). */
enum { SIM_PEND_NONE, SIM_PEND_WRITE, SIM_PEND_READ };

/* A shared byte's init flags. */
enum { SIM_WRITTEN = 1, SIM_GENERIC = 2 };

/* ---------------------------------------------------------------- threads */

#define SIM_MAX_DEPTH 64
#define SIM_MAX_REPLAY 16
#define SIM_COLL_MAX 16
#define SIM_NBARRIERS 16
#define SIM_MAX_ACC 16

typedef struct SimFrame {
    const IrStmt *s;
    int64_t i, end; /* SEQ: the next statement; FOR: the next iteration and the end */
    bool entered;
} SimFrame;

typedef struct SimThread {
    int tid;             /* linear index in the CTA */
    int gid;             /* in the cluster: its CTA's rank * threads per CTA + tid */
    uint32_t *vc;        /* its vector clock: its view of each cluster thread's clock */
    unsigned idx[3];     /* threadIdx */
    SimVal *vals;        /* one slot per variable of the kernel */
    SimFrame frames[SIM_MAX_DEPTH];
    int depth;
    enum { SIM_T_RUN, SIM_T_WAIT, SIM_T_DONE } state;
    bool blocked;        /* the current statement stopped at a collective */
    int ncoll, nreplay;  /* collectives passed in the current statement, results held */
    uint64_t replay[SIM_MAX_REPLAY][SIM_COLL_MAX];
    int wait_bar;        /* SIM_T_WAIT: a barrier's id, or one of SIM_WAIT_* */
    TxSpan wait_at;
    uint8_t *wait_mbar;  /* SIM_WAIT_MBARRIER: the mbarrier and the phase parity awaited */
    int wait_parity;
    uint32_t cluster_phase; /* the cluster barrier phase of its last arrive */
    bool yield;          /* the step spun on a wait that did not complete: let others run */
    bool cluster_waiting; /* arrived at the cluster barrier, not yet past its wait */
    IrPtrMap locals;     /* local allocation -> its storage (reused when it runs again) */
    TX_VEC(uint8_t *) local_blocks;
    /* commit groups: how many the thread committed (cp.async, bulk, wgmma) */
    int64_t cp_groups, bulk_groups, wg_groups;
    struct {
        uint64_t lo, hi; /* host addresses of a wgmma's accumulators (or of A's registers,
                          * `input`), not yet waited for */
        int64_t group;
        bool input;
        TxSpan at;
    } acc[SIM_MAX_ACC];
    int nacc;
    uint64_t clock;      /* statements it executed: %clock64, and %globaltimer in ns */
    uint32_t trace_n;    /* T.cuda.iket events it reached (the warp records each once) */
    uint32_t proxy_fenced; /* its own clock just after its last fence.proxy.async (which
                            * advances it; 0: none): its generic writes at earlier clocks
                            * are visible to the async proxy */
} SimThread;

enum { SIM_WAIT_WARP = -1, SIM_WAIT_MBARRIER = -2, SIM_WAIT_CLUSTER = -3 };

typedef enum {
    SIM_COLL_SHFL_IDX, SIM_COLL_SHFL_UP, SIM_COLL_SHFL_DOWN, SIM_COLL_SHFL_XOR,
    SIM_COLL_BALLOT, SIM_COLL_ANY, SIM_COLL_ALL, SIM_COLL_SYNC, SIM_COLL_ELECT,
    SIM_COLL_REDUX_ADD, SIM_COLL_REDUX_MIN, SIM_COLL_REDUX_MAX, SIM_COLL_LDMATRIX,
    SIM_COLL_STMATRIX, SIM_COLL_MMA,
} SimCollOp;

/* One warp's collective in progress: what each lane brought. */
typedef struct SimWarpColl {
    bool open;
    SimCollOp op;
    uint32_t mask, arrived;
    const IrCall *call;  /* the instruction (ldmatrix, mma: shape and types from its slots) */
    uint64_t in[32][SIM_COLL_MAX];
    TxSpan at;
} SimWarpColl;

/* A warpgroup's wgmma in progress. */
typedef struct SimGroupColl {
    bool open;
    int arrived;
    const IrCall *call;
    TxSpan at;
} SimGroupColl;

typedef struct SimBarrier {
    int arrived, expected; /* expected 0: every live thread of the CTA */
    uint32_t *vc;          /* the join of the arrivals' clocks */
} SimBarrier;

typedef struct SimCta {
    unsigned idx[3];
    int rank;            /* in its cluster */
    int nthreads, nlive;
    SimThread *threads;
    uint8_t *smem;
    SimRegion *smem_region;
    SimBarrier bars[SIM_NBARRIERS];
    SimWarpColl *warps;
    SimGroupColl *groups; /* per warpgroup */
    uint32_t *vc;        /* its threads' vector clocks: thread i's view of cluster thread j's
                          * clock at [i vcw + j] */
    int vcw;             /* a clock's width: the threads of the cluster */
    struct SimTmem *tmem; /* tensor memory, made at its first use */
} SimCta;

/* An mbarrier (PTX ISA 9.7.13.15): arrivals expected per phase, pending in
 * the current phase, the transaction bytes still expected, the phase. */
typedef struct SimMbarrier {
    uint8_t *at;
    uint32_t count, pending, phase;
    int64_t tx;
    TxSpan init_at;
    SimCta *cta;         /* whose shared memory holds it */
    uint32_t *vc, *done[2]; /* clocks joined in this phase; of the last phase of each parity */
} SimMbarrier;

/* An asynchronous operation in flight: the bytes [lo, hi) of a CTA's shared
 * memory it writes or reads until it completes, at a wait_group of its
 * commit group (cp.async and bulk stores: the issuing thread's; wgmma: the
 * warpgroup's) or, for loads completing on an mbarrier, when a thread polls
 * that mbarrier. */
typedef enum { SIM_ASYNC_CP, SIM_ASYNC_LOAD, SIM_ASYNC_STORE, SIM_ASYNC_WGMMA } SimAsyncKind;
typedef struct SimAsync {
    SimAsyncKind kind;
    SimCta *cta;
    uint32_t lo, hi;
    SimCta *icta;        /* the issuing thread's CTA and the thread */
    int issuer;
    int64_t group;
    uint8_t *mbar;       /* SIM_ASYNC_LOAD: its mbarrier and transaction bytes */
    int64_t bytes;
    TxSpan at;
} SimAsync;

typedef struct SimLaunch {
    SimSession *ss;
    const IrFunc *f;
    RtLaunchConfig cfg;
    IrPtrMap slot;       /* variable -> 1 + its slot */
    int nslots;
    IrPtrMap smem_off;   /* shared allocation (buffer var) -> byte offset in the CTA's block */
    size_t smem_size;
    SimVal *params;      /* the kernel's arguments, by slot of its params */
    SimCta *ctas;        /* the CTAs of the cluster being run */
    int nctas;
    SimCta *cta;         /* the CTA of the thread being run */
    uint64_t events;     /* state changes another thread could wait for */
    uint64_t steps;      /* statements run, to look at the clock now and then */
    double deadline;     /* rt_seconds_now() past which the launch fails; 0: none */
    IrPtrMap mbars;      /* an mbarrier's host address -> 1 + index into mbar */
    TX_VEC(SimMbarrier) mbar;
    int cluster_arrived; /* barrier.cluster: arrivals in the current phase */
    uint32_t *cluster_vc[2]; /* its clocks: the arrivals of this phase, of the last one */
    uint32_t cluster_phase;
    TX_VEC(SimAsync) inflight;
    bool agent;          /* an asynchronous unit (wgmma) reads the thread's registers */
    const char *proxy_read; /* the async-proxy operation whose shared reads these are, or NULL */
    bool proxy_write;    /* the shared writes are an async-proxy copy's (TMA, bulk, st.async) */
    bool atomic;         /* the access is an atomic's or a reduction's (not a plain store) */
    /* per CTA of the grid (linear index): its threads' gpu-scope fences so far,
     * and whether one of them has done an atomic or an acquire load (what
     * orders another CTA's fenced stores before its reads: split-K's counter) */
    uint32_t *cta_fences;
    uint8_t *cta_acquired;
    uint64_t *trace;     /* the launch's trace records (ss->trace), or NULL */
    uint64_t trace_warps; /* warps per CTA */
} SimLaunch;

/* ---------------------------------------------------------------- errors */

/* Records the first error: "file:line:col: error: MESSAGE (thread (x,y,z) of
 * CTA (x,y,z))" at `at`, or at the thread's innermost statement with a
 * source position. */
void sim_fail(SimLaunch *l, SimThread *t, TxSpan at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool sim_failed(const SimLaunch *l);

/* The grid-linear index of the CTA being run (x fastest). */
uint32_t sim_cta_linear(const SimLaunch *l);

/* ---------------------------------------------------------------- mem.c */

SimRegion *sim_region_add(SimSession *ss, void *base, size_t size, SimMemKind kind);
void sim_region_remove(SimSession *ss, SimRegion *r);
/* Checked access of n bytes at addr by t: out of bounds, uninitialised
 * shared memory and unordered shared writes are errors at `at`. Returns the
 * host pointer, or NULL after an error. */
uint8_t *sim_mem_read(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at);
/* A prefetch of n bytes at addr into a cache: they must lie inside one
 * global tensor (a hint, but elsewhere a wrong address);
 * false after an error. */
bool sim_mem_prefetch(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at);
uint8_t *sim_mem_write(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at);
/* The generic address of a shared-window address (cvta) and back. */
uint64_t sim_shared_generic(SimLaunch *l, uint64_t saddr);
uint64_t sim_shared_window(SimLaunch *l, uint64_t addr);
/* Whether a generic address points into the CTA's shared memory. */
bool sim_in_shared(const SimLaunch *l, uint64_t addr);
/* The offset of a generic shared-memory address in the shared memory of the
 * CTA of the cluster that holds it, and that CTA's rank (the running CTA's
 * when none does). */
uint32_t sim_cluster_offset(const SimLaunch *l, uint64_t addr, int *rank);
/* Loads/stores a value of dtype t (one lane) through the checks. */
bool sim_load(SimLaunch *l, SimThread *t, uint64_t addr, IrDType t_, SimVal *out, TxSpan at);
bool sim_store(SimLaunch *l, SimThread *t, uint64_t addr, IrDType t_, SimVal v, TxSpan at);

/* ---------------------------------------------------------------- expr.c */

SimVal sim_eval(SimLaunch *l, SimThread *t, const IrExpr *e, int lane);
/* A store of v into an element of a sub-byte buffer (packed fp4 / fp6 or an
 * _align16 form): rewrites the element's bits of its byte(s). */
bool sim_subbyte_store(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx,
                       int n, SimVal v, TxSpan at);
/* The address of element `lane` of a buffer access (indices flattened);
 * with `check`, an index outside the buffer's shape is an error. */
bool sim_access_addr(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx, int n,
                     int lane, bool check, TxSpan at, uint64_t *addr);
/* Stores v into the buffer element an output operand names (a BufferLoad). */
bool sim_assign(SimLaunch *l, SimThread *t, const IrExpr *lhs, SimVal v);
int sim_slot(SimLaunch *l, const IrExpr *var);
/* The host address of a local buffer element `e` names; false for anything else. */
bool sim_local_addr(SimLaunch *l, SimThread *t, const IrExpr *e, uint64_t *addr);

/* ---------------------------------------------------------------- ptx.c */

/* A T.ptx call; its value (PTX calls are statements: 0). */
SimVal sim_ptx(SimLaunch *l, SimThread *t, const IrExpr *e);

/* A T.ptx call resolved against the PTX table: its slots and operands. */
typedef struct SimPtx {
    const IrCall *c;
    IrPtxResolved r;
    IrPtxOperand ops[IR_PTX_MAX_SLOTS];
    int nops;
} SimPtx;
void sim_ptx_resolve(const IrCall *c, SimPtx *p);
/* The token of slot `name` ("" when omitted or absent). */
const char *sim_ptx_slot(const SimPtx *p, const char *name);
/* Operand `name`; NULL when the instruction has none or the call omits it
 * (an optional operand whose slot is not written). */
const IrPtxOperand *sim_ptx_operand(const SimPtx *p, const char *name);
/* The value of lane `lane` of operand `name` (0 when absent). */
int64_t sim_ptx_value(SimLaunch *l, SimThread *t, const SimPtx *p, const char *name, int lane);
/* The generic address of an address operand, from its state space. */
uint64_t sim_ptx_address(SimLaunch *l, SimThread *t, const SimPtx *p, const IrPtxOperand *o);
/* An argument's bits as its dtype stores them; writes a register of bits_w
 * bits into an output argument (converted when the widths differ). */
uint64_t sim_arg_bits(SimLaunch *l, SimThread *t, const IrExpr *a);
bool sim_set_bits(SimLaunch *l, SimThread *t, const IrExpr *a, uint64_t bits, int bits_w);

/* ---------------------------------------------------------------- coll.c */

/* The thread's next collective of its current statement: true with the
 * results in out when it has completed, false when the thread now waits
 * (t->blocked). in: this lane's inputs. */
bool sim_coll(SimLaunch *l, SimThread *t, SimCollOp op, uint32_t mask, const IrCall *call,
              const uint64_t *in, int nin, uint64_t *out, TxSpan at);
/* bar.sync `id` for `count` threads (0: the whole CTA); with arrive,
 * bar.arrive: counted without waiting. */
bool sim_barrier(SimLaunch *l, SimThread *t, int id, int count, bool arrive, TxSpan at);
/* A thread waits (kind: a barrier id or SIM_WAIT_*) and its statement stops. */
void sim_wait(SimLaunch *l, SimThread *t, int kind, TxSpan at);
/* Completes the barriers a thread's exit lets complete. */
void sim_thread_exited(SimLaunch *l, SimThread *t);
/* The thread's warpgroup collective (wgmma.mma_async): true when it has
 * completed, false when the thread now waits. */
bool sim_group_coll(SimLaunch *l, SimThread *t, const IrCall *call, TxSpan at);
/* Results of a thread's collective when it completes (ldmatrix, mma). */
void sim_coll_complete(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp);

/* ---------------------------------------------------------------- async.c */

/* mbarriers, cp.async, TMA (cp.async.bulk.tensor), the cluster barrier and
 * distributed shared memory: the T.ptx entries of async.c; false when e is
 * none of them. */
bool sim_ptx_async(SimLaunch *l, SimThread *t, const IrExpr *e, int entry);
/* T.cuda.mbarrier_wait(bar, parity): waits for the phase of that parity. */
void sim_mbarrier_wait(SimLaunch *l, SimThread *t, uint64_t addr, int parity, TxSpan at);
/* T.cuda.cluster_sync(): arrive and wait on the cluster barrier. */
void sim_cluster_sync(SimLaunch *l, SimThread *t, TxSpan at);
/* Completes the cluster barrier a thread's exit lets complete. */
void sim_cluster_exited(SimLaunch *l);
/* The generic address of a shared::cluster address (mapa's encoding). */
uint64_t sim_cluster_generic(SimLaunch *l, uint64_t caddr);
/* mbarrier.arrive (count arrivals, tx more transaction bytes expected) and
 * complete_tx on the mbarrier at a generic address. */
void sim_mbarrier_arrive(SimLaunch *l, SimThread *t, uint64_t addr, uint32_t count, int64_t tx,
                         TxSpan at);
void sim_mbarrier_complete_tx(SimLaunch *l, SimThread *t, uint64_t addr, int64_t bytes, TxSpan at);
/* What a thread waiting on an mbarrier waits for, for a deadlock report. */
void sim_mbarrier_describe(SimLaunch *l, const SimThread *t, char *buf, size_t n);

/* ---------------------------------------------------------------- wgmma.c */

/* T.cuda.{wgmma,tcgen05}.encode_matrix_descriptor */
void sim_encode_smem_desc(SimLaunch *l, SimThread *t, const IrExpr *e);
/* The product of warpgroup `group`'s wgmma.mma_async, into its threads' accumulators. */
void sim_wgmma(SimLaunch *l, SimCta *c, int group, const IrCall *call, TxSpan at);

/* The canonical shared-memory layouts a matrix descriptor describes
 * (wgmma and tcgen05): start, leading and stride byte offsets, the swizzle
 * in bytes (0, 32, 64, 128) and whether rows run along M/N (MN-major). */
typedef struct SimSmemOperand {
    uint32_t start, lbo, sbo;
    int swizzle;
    bool mn_major;
} SimSmemOperand;
/* rows x k elements of dtype dt through o into out (row-major), checked
 * shared-memory reads by t. With range, the bytes are marked pending reads
 * of an operation in flight and range[0..1] grows to cover them. */
bool sim_read_smem_operand(SimLaunch *l, SimThread *t, const SimSmemOperand *o, IrDType dt,
                           int rows, int k, double *out, uint32_t *range, TxSpan at);
/* The tensor cores' value of a tf32 input: the float32's top 10 mantissa bits. */
double sim_tf32_value(double f);

/* ---------------------------------------------------------------- tcgen05.c */

/* Tensor memory of a CTA: 128 lanes x 512 columns of 32 bits, with a state
 * per cell (unwritten, ready, written by an MMA not yet committed) and the
 * allocated columns. */
typedef struct SimTmem {
    uint32_t v[128 * 512];
    uint8_t st[128 * 512];
    uint8_t allocated[512];
    TxSpan alloc_at[512]; /* the tcgen05.alloc of each allocation, at its first column */
    bool pending;
} SimTmem;
/* The tcgen05 and clusterlaunchcontrol T.ptx entries; false when p is none
 * of them. */
bool sim_tcgen05(SimLaunch *l, SimThread *t, const IrExpr *e, const SimPtx *p);
/* At the end of CTA c: an error when it left tensor memory allocated. */
void sim_tcgen05_check_freed(SimLaunch *l, SimCta *c);

/* ---------------------------------------------------------------- order.c */

/* Clocks span the cluster: c is any CTA of it (for the width c->vcw). A
 * synchronisation object's clock (sim_vc_new) also keeps the latest modelled
 * time (trace.c) released into it, which an acquire brings the thread to. */
/* A release: t's clock joined into acc, then t's own advanced. */
void sim_hb_release(const SimCta *c, SimThread *t, uint32_t *acc);
/* An acquire: the clocks of acc joined into t's. */
void sim_hb_acquire(const SimCta *c, SimThread *t, const uint32_t *acc);
/* Joins the clocks (and times) of threads [first, first + n) of c (a rendezvous). */
void sim_hb_join(SimCta *c, int first, int n);
/* Allocates an object's clock of zeros (NULL when out of memory), and its size. */
uint32_t *sim_vc_new(const SimCta *c);
size_t sim_vc_bytes(const SimCta *c);
/* The thread of the cluster whose gid is g. */
SimThread *sim_thread_of(const SimLaunch *l, int g);

/* Records an operation in flight and marks its bytes (state SIM_PEND_*):
 * [lo, hi) is the range its marks lie in. */
void sim_async_add(SimLaunch *l, SimAsync op);
/* Completes the operations in flight that `match` selects: clears their
 * marks and removes them; a cp.async's bytes are then written by its thread,
 * a load on an mbarrier completes its transaction bytes. */
void sim_async_complete(SimLaunch *l, SimThread *t, bool (*match)(const SimAsync *, const void *),
                        const void *arg);
/* The error for t's read or write of byte `off` of c's shared memory, which
 * an operation in flight has marked: names the operation, its line and its
 * thread. */
void sim_async_conflict(SimLaunch *l, SimThread *t, SimCta *c, size_t off, bool write,
                        TxSpan at);
/* Marks n bytes of shared memory at generic address addr. */
void sim_mark(SimLaunch *l, uint64_t addr, size_t n, int state);
/* cp.async / bulk / wgmma commit_group and wait_group by t. */
void sim_commit_group(SimThread *t, SimAsyncKind k);
void sim_wait_group(SimLaunch *l, SimThread *t, SimAsyncKind k, int64_t n);
/* Whether a read (or write) of a local at host address addr by t touches an
 * accumulator, or an A register (the rs form), of a wgmma not yet waited for
 * (an error at `at`). */
bool sim_acc_pending(SimLaunch *l, SimThread *t, uint64_t addr, bool write, TxSpan at);

/* ---------------------------------------------------------------- trace.c */

/* t's %globaltimer (ns) and the %smid of CTA c: the model of trace.c. */
uint64_t sim_globaltimer(const SimThread *t);
uint32_t sim_smid(const SimLaunch *l, const SimCta *c);
/* A T.cuda.iket call: its record when the simulation is traced; its value
 * (a range token, or 0 without trace). */
SimVal sim_iket(SimLaunch *l, SimThread *t, const IrExpr *e);
/* The launch's record buffer (false: out of memory), and its records added
 * to the session's trace after the run. No-ops when not traced. */
bool sim_trace_begin(SimLaunch *l);
void sim_trace_end(SimLaunch *l);

/* ---------------------------------------------------------------- exec.c */

/* Runs every CTA of the launch. */
bool sim_run_launch(SimLaunch *l);

#endif
