/** The parts of @midlandsbank/node-nacha (untyped CommonJS) that ach/nacha.ts uses. */
declare module '@midlandsbank/node-nacha' {
  interface NachaEntryRecord {
    transactionCode: string;
    receivingDFIIdentification: number;
    checkDigit: number;
    dfiAccount: string;
    amount: number;
    identificationNumber: string;
    receivingCompanyName: string;
    traceNumber: number;
  }
  interface NachaControl {
    batchCount?: number;
    entryAndAddendaCount: number;
    entryHash: number;
    totalDebit: number;
    totalCredit: number;
  }
  export interface NachaData {
    file: { destination: string; origin: string; footer: NachaControl & { batchCount: number } };
    batches: Array<{
      companyName: string;
      companyId: string;
      entryClassCode: string;
      entries: NachaEntryRecord[];
      footer: NachaControl;
    }>;
  }
  interface EntryInput {
    name: string;
    account: { num: string; type: 'C' | 'S' };
    routing: string;
    amount: number;
    identificationNumber?: string;
    traceNumber?: string;
    paymentTypeCode?: 'R' | 'S';
  }
  interface Builder {
    web(batch: {
      effectiveDate: string;
      description: string;
      companyName?: string;
      companyId?: string;
      originatingDFIIdentification?: string;
    }): Builder;
    debit(entry: EntryInput): Builder;
  }
  const nacha: {
    create(header: {
      from: { name: string; fein: string };
      for: { name: string; routing: string };
      referenceCode?: string;
    }): Builder;
    from(source: Builder | string): { data: NachaData; to(format: 'ach' | 'json'): string };
  };
  export default nacha;
}
