import { answerCheck, type ContractCheckAnswer, type ContractCheckRequest } from './contract-answers'

/** The checking worker's entry (lib/contract.ts starts it): each message is an answer to check. */
const scope = globalThis as unknown as {
  addEventListener(type: 'message', listener: (event: MessageEvent<ContractCheckRequest>) => void): void
  postMessage(message: ContractCheckAnswer): void
}

scope.addEventListener('message', ({ data }) => scope.postMessage(answerCheck(data)))
