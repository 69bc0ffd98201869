/** The maintenance scheduler as seen by callers: its state, and running jobs now. */
import type { MaintenanceStatus } from '../api.ts';
import { requireOpen, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import { MAINTENANCE_JOBS, type MaintenanceJob, type MaintenanceRun, type MaintenanceScheduler } from '../services/maintenance.ts';

function schedulerOf(ctx: Using): MaintenanceScheduler {
  const scheduler = ctx.state.scheduler;
  if (!scheduler) throw new MemoryError('CLOSED', `Store "${ctx.name}" has no maintenance scheduler`);
  return scheduler;
}

export async function maintenanceStatus(ctx: Using): Promise<MaintenanceStatus> {
  requireOpen(ctx);
  return schedulerOf(ctx).status();
}

/** Runs maintenance jobs now (default: the due ones). */
export async function runMaintenance(ctx: Using, jobs?: MaintenanceJob[]): Promise<MaintenanceRun[]> {
  requireOpen(ctx);
  if (jobs !== undefined && (!Array.isArray(jobs) || jobs.some((j) => !MAINTENANCE_JOBS.includes(j)))) {
    throw invalid(`jobs must be an array of ${MAINTENANCE_JOBS.map((j) => `'${j}'`).join(', ')}`, { field: 'jobs' });
  }
  return schedulerOf(ctx).tick(jobs ? { force: jobs } : {});
}
