import {
  type CustomParameterRequest,
  customParamSettingsOrder,
  DomainError,
  type CustomParameter as PublicCustomParameter,
} from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import { inTransaction } from '../db/transaction.ts';
import { CustomParameter } from './entities.ts';

type Settings = CustomParameterRequest['customParamSettings'];

function present(parameter: CustomParameter): PublicCustomParameter {
  return {
    customParamId: parameter.id,
    customParamTitle: parameter.title,
    active: parameter.active,
    mandatory: parameter.mandatory,
    // jsonb keeps keys in its own order; answers show the reference's.
    customParamSettings: inOrder(parameter.settings, customParamSettingsOrder) as Settings,
  };
}

async function findParameter(ctx: MerchantContext, id: number): Promise<CustomParameter> {
  const parameter = await ctx.em.findOne(CustomParameter, { id, merchantId: ctx.merchantId });
  if (!parameter) throw new DomainError('RESOURCE_NOT_FOUND', `custom parameter ${id} was not found`);
  return parameter;
}

/** POST /catalog/custom-parameters: its id (the facade answers 201 with it in Location). */
export async function createCustomParameter(
  ctx: MerchantContext,
  input: CustomParameterRequest,
): Promise<PublicCustomParameter> {
  return inTransaction(ctx.em, async (em) => {
    const parameter = em.create(CustomParameter, {
      merchantId: ctx.merchantId,
      title: input.customParamTitle,
      active: input.active,
      mandatory: input.mandatory,
      settings: input.customParamSettings,
    });
    await em.flush();
    return present(parameter);
  });
}

/** PUT /catalog/custom-parameters/{id}: the whole parameter is replaced, as the reference sends it whole. */
export async function updateCustomParameter(
  ctx: MerchantContext,
  input: CustomParameterRequest & { customParamId: number },
): Promise<void> {
  await inTransaction(ctx.em, async (em) => {
    const parameter = await findParameter({ ...ctx, em }, input.customParamId);
    parameter.title = input.customParamTitle;
    parameter.active = input.active;
    parameter.mandatory = input.mandatory;
    parameter.settings = input.customParamSettings;
    await em.flush();
  });
}

export async function getCustomParameter(ctx: MerchantContext, id: number): Promise<PublicCustomParameter> {
  return present(await findParameter(ctx, id));
}

/** Why `value` does not fit the parameter's type and settings, or undefined when it does. */
export function parameterValueProblem(parameter: CustomParameter, value: string): string | undefined {
  const settings = parameter.settings;
  switch (settings.customParamType) {
    case 'BOOLEAN':
      return /^(true|false)$/i.test(value) ? undefined : 'must be true or false';
    case 'FIXED-SELECTION': {
      const values = settings.fixedSelectionType?.dropDownValues ?? [];
      return values.includes(value) ? undefined : `must be one of ${values.join(', ')}`;
    }
    default: {
      const range =
        settings.shortTextType ?? settings.longTextType ?? settings.merchantValueType ?? ({} as const);
      const { minimumLength = 0, maximumLength = 4000 } = range;
      if (value.length < minimumLength || value.length > maximumLength)
        return `must be ${minimumLength} to ${maximumLength} characters`;
      const pattern = settings.shortTextType?.regexValidation;
      return pattern === undefined || new RegExp(pattern, 'u').test(value)
        ? undefined
        : `must match ${pattern}`;
    }
  }
}
