import { InvalidArgumentError } from 'commander';
import { FaultSpecError, parseFaultSpec, type FaultSpec } from '../http/faultSpec.js';

/** `serve --faults SPEC`: a spec that cannot be read is a one-line usage error (exit 2). */
export function parseFaultsOption(text: string): FaultSpec {
  try {
    return parseFaultSpec(text);
  } catch (error) {
    if (error instanceof FaultSpecError) throw new InvalidArgumentError(`${error.message}.`);
    throw error;
  }
}

export const FAULTS_HELP =
  'inject faults into the API answers, for testing clients, e.g. latency=50-400ms,503=2%,reset=1%,slow=1%,seed=42 (default: none)';
