import type { Client, ElicitResult } from '@modelcontextprotocol/client';
import { outsideSdkScope } from '../transport/index.js';
import {
  applyFormDefaults,
  type ClientFeatures,
  capSampling,
  checkFormSchema,
  urlElicitationProblem,
} from './features.js';

/** Wire the host's roots, sampling and elicitation handlers into the SDK client. Returns a cleanup. */
export function registerFeatureHandlers(client: Client, features: ClientFeatures | undefined): () => void {
  if (!features) return () => {};
  const { roots, sampling, elicitation } = features;
  let unsubscribe = () => {};
  if (roots) {
    client.setRequestHandler('roots/list', async () => ({
      roots: [...(await outsideSdkScope(() => roots.list())())],
    }));
    const stop = roots.subscribe(() => void client.sendRootsListChanged().catch(() => {}));
    unsubscribe = () => {
      stop();
    };
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) =>
      outsideSdkScope(() =>
        sampling.createMessage(capSampling(request.params, sampling.maxTokens), {
          signal: ctx.mcpReq.signal,
        }),
      )(),
    );
  }
  if (elicitation?.form || elicitation?.url) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const params = request.params;
      const signal = ctx.mcpReq.signal;
      if (params.mode === 'url') {
        const problem = urlElicitationProblem(params.url);
        if (problem || !elicitation.url) return { action: 'decline' };
        const url = elicitation.url;
        return outsideSdkScope(() => url.call(elicitation, params, { signal }))();
      }
      if (!elicitation.form) return { action: 'decline' };
      checkFormSchema(params.requestedSchema);
      const form = elicitation.form;
      const answer = await outsideSdkScope(() => form.call(elicitation, params, { signal }))();
      return answer.action === 'accept'
        ? {
            ...answer,
            content: applyFormDefaults(
              params.requestedSchema,
              answer.content as Record<string, unknown>,
            ) as ElicitResult['content'],
          }
        : answer;
    });
  }
  return unsubscribe;
}
